import { describe, expect, it } from 'vitest';
import { defineBackend } from './backend-module.js';
import { formatExplain, parseServiceRef, runExplain } from './explain.js';
import { logBackend } from './log-backend.js';
import { UsageError } from './usage-error.js';

describe('explain', () => {
  it('takes NAMESPACE/NAME (NAME alone is in default) and refuses anything that is not two names', () => {
    expect(parseServiceRef('kube-system/dns')).toEqual({ namespace: 'kube-system', name: 'dns' });
    expect(parseServiceRef('web')).toEqual({ namespace: 'default', name: 'web' });
    for (const bad of ['', '/', 'a/b/c', 'A/b', 'a/-b', 'a/b;c', 'a/"b"', 'a/b\nc', `a/${'x'.repeat(64)}`]) {
      expect(() => parseServiceRef(bad), bad).toThrow(UsageError);
    }
  });

  it('prints each source, its sections and counters, and says when a source holds nothing', () => {
    const service = { namespace: 'ns', name: 'web' };
    const text = formatExplain(service, [
      { source: 'a', sections: [{ title: 'entry', lines: [{ text: 'r1', packets: 3, bytes: 180 }, { text: 'r2' }] }] },
      { source: 'b', sections: [] },
    ]);
    expect(text).toBe(
      '# ns/web in a\nentry:\n  [3 packets, 180 bytes] r1\n  r2\n# ns/web in b\n  (nothing programmed for this Service)\n',
    );
  });

  it('is a usage error (2) without a backend that explains, with a bad flag, or without one name', async () => {
    const err: string[] = [];
    const stderr = (t: string): void => void err.push(t);
    expect(await runExplain('kpng', undefined, ['a/b'], { stderr })).toBe(2);
    expect(await runExplain('kpng', logBackend, ['a/b'], { stderr })).toBe(2);
    const explaining = defineBackend({ ...logBackend, explain: () => Promise.reject(new Error('nft: no such table')) });
    expect(await runExplain('kpng', explaining, ['a/b', '--nope'], { stderr })).toBe(2);
    expect(await runExplain('kpng', explaining, [], { stderr })).toBe(2);
    expect(err.join('')).toContain('explain needs --backend');
    expect(err.join('')).toContain('the log backend cannot explain yet');
    expect(await runExplain('kpng', explaining, ['a/b'], { stderr })).toBe(1);
    expect(err.at(-1)).toBe('kpng explain: nft: no such table\n');
  });
});
