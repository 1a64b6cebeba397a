// s10k on the real nft, in namespaces this file creates: kpng's full sync (first sync of an
// instance), full resync, one-endpoint partial syncs, against kube-proxy's structure loaded in the
// same run. Prints one JSON object per measurement and a table. Wall-clock figures are reported,
// never asserted.
import { serviceKey, type ServiceKey, type SyncRequest } from '@kpng/core';
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { it } from 'vitest';
import { NftBackend } from '../src/backend/nft-backend.js';
import { createNftClient, type Nft, type Transaction } from '../src/nftables/index.js';
import { createNamespace, sweepLeftovers } from '../test/lab.js';
import { kubeProxyShape } from './kube-proxy-shape.js';
import { scaleState, withOneEndpointChange, type ScaleOptions } from './scenario.js';

const SHAPE: ScaleOptions = { services: Number(process.env['KPNG_BENCH_SERVICES'] ?? 10_000), endpoints: 10 };
const RUNS = Number(process.env['KPNG_BENCH_RUNS'] ?? 3);
const PARTIALS = 21;

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
const p99 = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil(xs.length * 0.99) - 1)] as number;
const rows: string[] = [];
function report(metric: string, values: number[], unit = 's'): number {
  const row = { scenario: `s${SHAPE.services / 1000}k`, metric, value: median(values), unit, n: values.length, p50: median(values), p99: p99(values) };
  console.log(JSON.stringify(row));
  rows.push(`${metric.padEnd(44)} ${row.value.toFixed(3).padStart(9)} ${unit}  (n=${row.n}, p99 ${row.p99.toFixed(3)})`);
  return row.value;
}

/** Times spent inside nft (process + kernel) for each transaction. */
class TimedNft implements Nft {
  readonly runs: { seconds: number; operations: number }[] = [];
  constructor(readonly inner: Nft) {}
  newTransaction(): Transaction {
    return this.inner.newTransaction();
  }
  async run(tx: Transaction): Promise<void> {
    const start = performance.now();
    await this.inner.run(tx);
    this.runs.push({ seconds: (performance.now() - start) / 1000, operations: tx.size });
  }
  check: Nft['check'] = (tx) => this.inner.check(tx);
  listTable: Nft['listTable'] = (f, t) => this.inner.listTable(f, t);
  listElements: Nft['listElements'] = (f, t, c) => this.inner.listElements(f, t, c);
}

const request = (state: SyncRequest['state'], full: boolean, changed: ServiceKey[] = [], revision = 1): SyncRequest => ({
  state,
  changes: { ...(full ? {} : { updatedServices: new Set(changed) }), triggerTimes: new Map(), nodeChanged: false },
  full,
  revision,
});

it(`nft backend at s${SHAPE.services / 1000}k`, async () => {
  await sweepLeftovers();
  const t0 = performance.now();
  const state = scaleState(SHAPE);
  console.log(`# state: ${state.services.length} services built by core's node view in ${((performance.now() - t0) / 1000).toFixed(2)} s; load ${(await execa('uptime')).stdout.trim()}`);

  const full: number[] = [];
  const fullNft: number[] = [];
  const resync: number[] = [];
  const partial: number[] = [];
  let operations = 0;
  for (let run = 0; run < RUNS; run++) {
    const ns = await createNamespace(`bench-kpng-${run}`);
    try {
      const heapBefore = run === 0 ? heapNow() : 0;
      const nft = new TimedNft(await createNftClient({ netns: ns.name }));
      const backend = new NftBackend({ nft, conntrack: false, families: ['IPv4'], log: silent });
      let start = performance.now();
      await backend.sync(request(state, true));
      full.push((performance.now() - start) / 1000);
      fullNft.push(nft.runs.at(-1)?.seconds ?? 0);
      operations = nft.runs.at(-1)?.operations ?? 0;
      start = performance.now();
      await backend.sync(request(state, true, [], 2));
      resync.push((performance.now() - start) / 1000);
      let current = state;
      for (let i = 0; i < PARTIALS; i++) {
        const index = (run * PARTIALS + i) * 37 % SHAPE.services;
        current = withOneEndpointChange(current, SHAPE, index, i + 1);
        const key = serviceKey('scale', `svc-${index}`);
        start = performance.now();
        await backend.sync(request(current, false, [key], 3 + i));
        partial.push((performance.now() - start) / 1000);
      }
      if (run === 0) {
        report('heap held by the backend (tables in memory)', [heapNow() - heapBefore], 'MiB');
        report('process RSS (vitest worker, state, backend)', [process.memoryUsage().rss / 2 ** 20], 'MiB');
      }
    } finally {
      await ns.delete();
    }
  }
  const kpngFull = report('kpng full sync, first of an instance', full);
  report('  of which inside nft (process + kernel)', fullNft);
  report(`  operations in that transaction`, [operations], 'ops');
  report('kpng full resync (flush + rewrite)', resync);
  report('kpng partial sync, one endpoint change', partial.map((s) => s * 1000), 'ms');

  const reference: number[] = [];
  const file = join(tmpdir(), `kpng-bench-reference-${process.pid}.nft`);
  writeFileSync(file, kubeProxyShape(state));
  for (let run = 0; run < Number(process.env['KPNG_BENCH_REFERENCE_RUNS'] ?? 1); run++) {
    const ns = await createNamespace(`bench-ref-${run}`);
    try {
      const start = performance.now();
      await ns.exec(['nft', '-f', file], { timeoutMs: 1_500_000 });
      reference.push((performance.now() - start) / 1000);
    } finally {
      await ns.delete();
    }
  }
  const ref = report('kube-proxy-shaped reference, nft -f load', reference);
  report('ratio kpng full sync / reference', [kpngFull / ref], 'x');
  console.log(`\n${rows.join('\n')}`);
});

/** Heap in use after a full garbage collection, MiB. */
function heapNow(): number {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
  return process.memoryUsage().heapUsed / 2 ** 20;
}

const silent = { info() {}, warn() {}, error() {}, debug() {}, with() { return silent; } };
