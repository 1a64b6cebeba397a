import { describe, expect, it } from 'vitest';
import { IptablesClient, netnsPrefix } from './client.js';
import type { Execer } from './exec.js';

describe('IptablesClient in a network namespace', () => {
  it('enters only the named namespace under /run/netns', async () => {
    const seen: string[] = [];
    const execer: Execer = {
      run: async (argv) => (seen.push(argv.join(' ')), { exitCode: 0, stdout: '', stderr: '' }),
    };
    const client = new IptablesClient({ execer, flavour: 'legacy', netns: 'kpng-t-1-a' });
    await client.restore('IPv6', '*nat\nCOMMIT\n');
    expect(seen).toEqual(['nsenter --net=/run/netns/kpng-t-1-a ip6tables-legacy-restore -w 5 --noflush']);
  });

  it.each(['', '.', '..', '../../proc/1/ns/net', 'a/b', 'a b', 'x\n'])('refuses the namespace name %j', (name) => {
    expect(() => netnsPrefix(name)).toThrow(/invalid network namespace name/);
  });
});
