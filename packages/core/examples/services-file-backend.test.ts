// The example backend of README.md runs as written: the README's code block is this folder's file,
// and the file, run as a program over the example cluster, writes and follows the node's services.
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runProgram } from '../src/runtime/run-program.js';
import { backend } from './services-file-backend.js';

const here = new URL('.', import.meta.url);
const EXAMPLE = new URL('../../../examples/cluster.yaml', import.meta.url).pathname;

async function eventually(what: string, check: () => boolean): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (check()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('the README example backend', () => {
  const dir = mkdtempSync(join(tmpdir(), 'kpng-example-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('is quoted in README.md exactly as it is in examples/', () => {
    const readme = readFileSync(new URL('../README.md', here), 'utf8');
    const block = /```ts example-backend\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(block).toBe(readFileSync(new URL('services-file-backend.ts', here), 'utf8'));
  });

  it('runs as a program: writes the node-local services, follows a manifest edit, cleans up', async () => {
    const manifest = join(dir, 'cluster.yaml');
    const out = join(dir, 'services.txt');
    copyFileSync(EXAMPLE, manifest);
    const stop = new AbortController();
    const flags = [
      '--out',
      out,
      '--node-name',
      'node-a',
      '--metrics-bind-address',
      'none',
      '--healthz-bind-address',
      'none',
    ];
    const running = runProgram(backend, ['--file', manifest, ...flags], { signal: stop.signal });
    try {
      await eventually('the first write', () => existsSync(out));
      const first = readFileSync(out, 'utf8');
      expect(first).toMatch(/^shop\/frontend IPv4 \S+:80\/TCP -> \S+:\d+/m);
      expect(first).toMatch(/^shop\/inventory IPv4 /m);

      const text = readFileSync(manifest, 'utf8');
      const start = text.indexOf('- apiVersion: v1\n  kind: Service\n  metadata:\n    name: inventory');
      expect(start).toBeGreaterThan(0);
      writeFileSync(manifest, text.slice(0, start) + text.slice(text.indexOf('\n- apiVersion', start + 10) + 1));
      await eventually('inventory removed', () => !/^shop\/inventory /m.test(readFileSync(out, 'utf8')));
      expect(readFileSync(out, 'utf8')).toMatch(/^shop\/frontend IPv4 /m);
    } finally {
      stop.abort();
    }
    expect(await running).toBe(0);
    expect(await runProgram(backend, ['--cleanup', ...flags])).toBe(0);
    expect(existsSync(out)).toBe(false);
    expect(await runProgram(backend, ['--file', manifest])).toBe(2); // --out is required
  });
});
