// Runs inside the lab's VM (`ipvs.suite.ts`): full sync and one-endpoint partial syncs of the IPVS
// backend and, in the same kernel, of the nft backend, each in a fresh network namespace.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Backend, Logger, SyncRequest } from '@kpng/core';
import { DEFAULT_IPVS_CONFIG, IpvsBackend, renderDesired } from '@kpng/ipvs';
import { createNamespace, VM_INPUTS_ENV } from '@kpng/lab';
import { NftBackend } from '@kpng/nft';
import { type IpvsBenchInput, type IpvsBenchResult, RESULT_MARKER, withServices } from './guest-input.js';

const SILENT: Logger = { info: () => {}, warn: () => {}, error: () => {}, debug: () => {}, with: () => SILENT };
const input = JSON.parse(readFileSync(join(process.env[VM_INPUTS_ENV] ?? '', 'bench.json'), 'utf8')) as IpvsBenchInput;
const request = (state: SyncRequest['state'], full: boolean, revision: number): SyncRequest => ({
  state,
  full,
  revision,
  changes: { triggerTimes: new Map(), nodeChanged: full },
});
const timed = async (fn: () => Promise<unknown>): Promise<number> => {
  const start = performance.now();
  await fn();
  return performance.now() - start;
};

/** Each figure as it is measured (stderr, streamed by the host): a long run that is stopped still reports what ran. */
const progress = (what: string, ms: number): void =>
  void process.stderr.write(`bench progress: ${what} ${ms.toFixed(0)} ms\n`);

async function measure(name: string, make: (netns: string) => Backend): Promise<{ full: number[]; partial: number[] }> {
  const full: number[] = [];
  const partial: number[] = [];
  for (let run = 0; run < input.runs; run++) {
    const ns = await createNamespace(`bench-${run}`);
    try {
      const backend = make(ns.name);
      await backend.setup?.();
      full.push(await timed(() => backend.sync(request(input.first, true, 1))));
      progress(`${name} full-sync run ${run}`, full.at(-1) ?? 0);
      if (run === 0) {
        let state = input.first;
        for (const [i, change] of input.changes.entries()) {
          state = withServices(state, change);
          partial.push(await timed(() => backend.sync(request(state, false, i + 2))));
          progress(`${name} partial-sync ${i}`, partial.at(-1) ?? 0);
        }
      }
      await backend.close?.();
    } finally {
      await ns.delete();
    }
  }
  return { full, partial };
}

// nft (the reference, the faster) first: a run stopped during the IPVS syncs still has its reference.
const nft = await measure('nft', (netns) => new NftBackend({ netns, conntrack: false, log: SILENT }));
const ipvs = await measure('ipvs', (netns) => new IpvsBackend({ netns, logger: SILENT, drainIntervalMs: 3_600_000 }));
const virtualServers = renderDesired(input.first, DEFAULT_IPVS_CONFIG).virtualServers.size;
const result: IpvsBenchResult = { ipvs: { ...ipvs, virtualServers }, nft };
console.log(`${RESULT_MARKER}${JSON.stringify(result)}`);
