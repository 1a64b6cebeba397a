import { mkdirSync, rmdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { runSyncChecked } from '@kpng/kit';
import { NodeView } from '@kpng/core/runtime';
import { nodeName, type NodeLocalState, type StateChanges } from '@kpng/core';
import { SILENT_LOGGER } from '@kpng/core/testing';
import { EbpfBackend, readCgroupV2Mounts } from '@kpng/ebpf';
import { NftBackend } from '@kpng/nft';
import { createNftClient } from '@kpng/nftables';
import type { EndpointSliceObject } from '../kube/types.js';
import { garbageCollector } from '../runner/gc.js';
import { measurementOf, type Measurement } from '../runner/measure.js';
import { ratio } from '../runner/ratio.js';
import { flipFirstEndpoint, sliceEvent, toModelEvents } from '../scenarios/model-events.js';
import { inNamespace, requireNamespaces } from './namespaces.js';
import { defineSuite, type SuiteContext } from './suite.js';

type Published = { state: NodeLocalState; changes: StateChanges; revision: number };

/**
 * The eBPF backend's map updates, with the nft backend as the reference in the same run (issue 29;
 * root only). One core publishes each state; both backends sync it:
 * - `ebpf.full-sync`: event to maps programmed (core's conversion, model and node view, then the
 *   backend's render, diff and map writes), and `nft.full-sync` the same to rules applied (nft in a
 *   namespace this suite creates), over `max(--runs, 3)` rounds, each with a fresh core, fresh
 *   backends and a fresh namespace, ebpf syncing first in even rounds and nft in odd ones (the
 *   suite measured one round before, whatever `--runs` said); `.backend` the backends' syncs alone,
 *   `ebpf.full-sync.core` core's part (in both figures), `ebpf.full-sync.vs.nft` the median of the
 *   rounds' ratios;
 * - `ebpf.partial-sync.one-endpoint`: one endpoint change (a Ready flip) from core's model to the
 *   maps updated, over `--partials` changes (default 41; target <= 2 ms median, <= 5 ms p99), and
 *   `nft.partial-sync.one-endpoint` for the same changes (the last round's core and backends);
 *   `...vs.nft` (ratio of medians); the backends' own parts as `.backend`;
 * - `ebpf.drift-check.slice`: 32 consecutive drift checks, each one slice of a pass over the maps
 *   (a check never holds a sync for longer than one slice).
 * The programs attach to a child cgroup of the cgroup v2 root this suite creates (no process is
 * ever moved into it) and removes; nothing attaches to the root.
 */
export default defineSuite({
  name: 'ebpf',
  description: 'ebpf backend: full sync and one endpoint change to BPF maps updated, nft backend as the reference',
  scenarios: ['s1k', 's10k', 's50k'],
  async run(ctx) {
    await requireNamespaces('ebpf');
    buildObjects();
    const [root] = readCgroupV2Mounts();
    if (root === undefined) throw new Error('the ebpf suite needs a cgroup v2 mount');
    const cgroup = join(root, `kpng-bench-${process.pid}`);
    mkdirSync(cgroup);
    try {
      await run(ctx, cgroup);
    } finally {
      rmdirSync(cgroup);
    }
  },
});

/** One core over the scenario, its first state published, and what it publishes next. */
interface CoreRun {
  readonly core: NodeView;
  /** Events to the first state published: the model and the node view. */
  readonly ms: number;
  readonly first: Published;
  /** The state published since the last call (undefined: none). */
  take(): Published | undefined;
}

function startCore(ctx: SuiteContext): CoreRun {
  const objects = ctx.objects();
  const core = new NodeView({ nodeName: nodeName(objects.benchNode), turnBudgetMs: Infinity });
  let published: Published | undefined;
  core.addLocalConsumer({ publish: (state, changes, revision) => void (published = { state, changes, revision }) });
  const start = performance.now();
  core.model.apply(toModelEvents(objects));
  for (const kind of ['Service', 'EndpointSlice', 'Node'] as const) core.model.synced(kind);
  const first = published as Published | undefined;
  if (first === undefined) throw new Error('core published no state');
  const ms = performance.now() - start;
  published = undefined;
  return {
    core,
    ms,
    first,
    take: () => {
      const next = published;
      published = undefined;
      return next;
    },
  };
}

/** Both backends freshly set up: ebpf on `cgroup`, nft in a namespace of its own. */
interface Backends {
  readonly ebpf: EbpfBackend;
  readonly nft: NftBackend;
  close(): Promise<void>;
}

async function freshBackends(cgroup: string, netns: string): Promise<Backends> {
  // Sized for s50k (~550k endpoint entries, ~53k service keys); the backend's defaults hold s10k.
  // Hash maps are not preallocated: only their bucket arrays are (16 MiB at 2^20).
  const limits = { services4: 1 << 17, services6: 1 << 17, endpoints: 1 << 20 };
  const client = await createNftClient({ netns });
  const ebpf = new EbpfBackend({ cgroup, logger: SILENT_LOGGER, limits });
  const nft = new NftBackend({ nft: client, conntrack: false, log: SILENT_LOGGER });
  const close = async (): Promise<void> => {
    await ebpf.close();
    await nft.close();
    await client.close();
  };
  try {
    await ebpf.setup();
  } catch (e) {
    await close();
    throw e;
  }
  return { ebpf, nft, close };
}

/**
 * Full syncs: `max(--runs, 3)` rounds, each with a fresh core (its time counted in both figures),
 * fresh backends and a fresh namespace for nft, ebpf first in even rounds and nft first in odd
 * ones. The last round's core and backends stay for the partial syncs (`measure`).
 */
async function run(ctx: SuiteContext, cgroup: string): Promise<void> {
  const rounds = Math.max(ctx.runs, 3);
  const core: number[] = [];
  const synced = { ebpf: [] as number[], nft: [] as number[] };
  for (let round = 0; round < rounds && !ctx.signal.aborted; round++) {
    const last = round === rounds - 1;
    await inNamespace(ctx, `ebpf-bench-nft-${round}`, async (ns) => {
      const backends = await freshBackends(cgroup, ns.name);
      try {
        garbageCollector()?.();
        const started = startCore(ctx);
        core.push(started.ms);
        const full = {
          state: started.first.state,
          changes: started.first.changes,
          full: true,
          revision: started.first.revision,
        };
        const order = round % 2 === 0 ? (['ebpf', 'nft'] as const) : (['nft', 'ebpf'] as const);
        for (const name of order) {
          garbageCollector()?.();
          synced[name].push(await timed(() => backends[name].sync(full)));
        }
        const maps = backends.ebpf.applied();
        ctx.log(
          `ebpf: round ${round + 1}/${rounds}: ${started.first.state.services.length} services; maps: ${maps?.services4.size} services4, ` +
            `${maps?.services6.size} services6, ${maps?.endpoints.size} endpoints; core ${Math.round(started.ms)} ms, ` +
            `ebpf ${Math.round(synced.ebpf.at(-1)!)} ms, nft ${Math.round(synced.nft.at(-1)!)} ms`,
        );
        if (last) await measure(ctx, started, backends);
      } finally {
        await backends.close();
      }
    });
  }
  if (ctx.signal.aborted) return;
  const { e, n } = reportBoth(ctx, 'full-sync', core, synced);
  report(ctx, 'ebpf.full-sync.core', measurementOf('core', core));
  // Each round's ebpf over its nft, both with that round's core: the median of the rounds' ratios.
  report(ctx, 'ebpf.full-sync.vs.nft', ratio(e, n));
}

/** One endpoint change at a time through the last round's core to both backends; then drift checks. */
async function measure(ctx: SuiteContext, started: CoreRun, { ebpf, nft }: Backends): Promise<void> {
  const { core } = started;
  const partials = Number(ctx.options['partials'] ?? 41);
  const slices = ctx.objects().endpointSlices.filter((s) => s.endpoints.length > 0);
  const samples = { core: [] as number[], ebpf: [] as number[], nft: [] as number[] };
  for (let i = 0; i < partials && !ctx.signal.aborted; i++) {
    const index = (i * 7919) % slices.length;
    const slice = flipFirstEndpoint(slices[index] as EndpointSliceObject);
    slices[index] = slice;
    const t0 = performance.now();
    core.model.apply([sliceEvent(slice)]);
    const next = started.take();
    if (next === undefined) throw new Error(`core published nothing for ${slice.metadata.name}`);
    samples.core.push(performance.now() - t0);
    const req = { state: next.state, changes: next.changes, full: false, revision: next.revision };
    samples.ebpf.push(await timed(() => ebpf.sync(req)));
    samples.nft.push(await timed(() => nft.sync(req)));
  }
  const { e, n } = reportBoth(ctx, 'partial-sync.one-endpoint', samples.core, samples);
  ratioOfMedians(ctx, 'ebpf.partial-sync.one-endpoint.vs.nft', e.p50, n.p50);
  // The drift check reads one slice (~20 ms) per call and goes on at the next: what holds a sync.
  const checks: number[] = [];
  for (let i = 0; i < 32 && !ctx.signal.aborted; i++) checks.push(await timed(() => ebpf.check()));
  report(ctx, 'ebpf.drift-check.slice', measurementOf('ebpf-check', checks));
}

const report = (ctx: SuiteContext, metric: string, m: Measurement): void => ctx.reportMeasurement(metric, m);

/**
 * `ebpf.<figure>` and `nft.<figure>`, each sample with core's part of it added, and `.backend`, the
 * backend's sync alone.
 */
function reportBoth(
  ctx: SuiteContext,
  figure: string,
  core: readonly number[],
  synced: { readonly ebpf: readonly number[]; readonly nft: readonly number[] },
): { e: Measurement; n: Measurement } {
  const total = (backend: readonly number[]) => backend.map((ms, i) => ms + (core[i] ?? 0));
  const e = measurementOf('ebpf', total(synced.ebpf));
  const n = measurementOf('nft', total(synced.nft));
  report(ctx, `ebpf.${figure}`, e);
  report(ctx, `ebpf.${figure}.backend`, measurementOf('ebpf-backend', synced.ebpf));
  report(ctx, `nft.${figure}`, n);
  report(ctx, `nft.${figure}.backend`, measurementOf('nft-backend', synced.nft));
  return { e, n };
}

function ratioOfMedians(ctx: SuiteContext, metric: string, subject: number, reference: number): void {
  const value = subject / reference;
  ctx.report({ scenario: ctx.scenario, metric, value, unit: 'x', n: 1, p50: value, p99: value });
}

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await fn();
  return performance.now() - start;
}

/** The BPF objects, compiled by @kpng/ebpf's build script when missing or stale (benchmarks run sources). */
function buildObjects(): void {
  const pkg = dirname(createRequire(import.meta.url).resolve('@kpng/ebpf/package.json'));
  runSyncChecked([process.execPath, join(pkg, 'scripts', 'build-bpf.mjs'), '--stale'], { output: 'inherit' });
}
