// Kernel test: the backend's nft shell lives inside the namespace it programs, and ends with the
// backend; a backend made only to clean up leaves none behind.
import { readdir, readFile, readlink } from 'node:fs/promises';
import { createNamespace, kernelE2e, sweepLeftovers, type NetworkNamespace } from '@kpng/lab';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nodeState } from '../testing/fixtures.js';
import { NftBackend } from './nft-backend.js';

const e2e = await kernelE2e('nft backend shell');

/** This process's child processes that run `sh`, with the network namespace each is in. */
async function shells(): Promise<{ pid: number; netns: string }[]> {
  const found: { pid: number; netns: string }[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = await readFile(`/proc/${entry}/stat`, 'utf8');
      const [comm, rest] = [
        stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')),
        stat.slice(stat.lastIndexOf(')') + 2),
      ];
      if (comm !== 'sh' || Number(rest.split(' ')[1]) !== process.pid) continue;
      found.push({ pid: Number(entry), netns: await readlink(`/proc/${entry}/ns/net`) });
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

describe.skipIf(!e2e.run)('nft backend, its nft shell (kernel)', () => {
  let namespace: NetworkNamespace;
  let inside: string;

  beforeAll(async () => {
    await sweepLeftovers();
    namespace = await createNamespace('nftshell');
    inside = (await namespace.exec(['readlink', '/proc/self/ns/net'])).stdout.trim();
  });

  afterAll(async () => {
    await namespace?.delete();
  });

  it('runs nft from one shell inside the namespace, which close() ends', async () => {
    const before = await shells();
    const backend = new NftBackend({ netns: namespace.name, conntrack: false });
    await backend.setup();
    await backend.sync({
      state: nodeState([]),
      changes: { triggerTimes: new Map(), nodeChanged: true },
      full: true,
      revision: 1,
    });
    const during = (await shells()).filter((s) => !before.some((b) => b.pid === s.pid));
    expect(during).toHaveLength(1);
    expect(during[0]!.netns).toBe(inside);
    expect((await namespace.exec(['nft', 'list', 'tables'])).stdout).toContain('table ip kpng');
    await backend.cleanup();
    await backend.close();
    expect((await shells()).filter((s) => !before.some((b) => b.pid === s.pid))).toEqual([]);
  });

  it('leaves no shell behind when made only to clean up', async () => {
    const before = await shells();
    await new NftBackend({ netns: namespace.name, conntrack: false }).cleanup();
    expect((await shells()).filter((s) => !before.some((b) => b.pid === s.pid))).toEqual([]);
    expect((await namespace.exec(['nft', 'list', 'tables'])).stdout).not.toContain('kpng');
  });
});
