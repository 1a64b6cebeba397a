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
import { flipFirstEndpoint, sliceEvent, toModelEvents } from '../scenarios/model-events.js';
import { inNamespace, requireNamespaces } from './namespaces.js';
import { defineSuite, type SuiteContext } from './suite.js';

type Published = { state: NodeLocalState; changes: StateChanges; revision: number };

/**
 * The eBPF backend's map updates, with the nft backend as the reference in the same run (issue 29;
 * root only). One core publishes each state; both backends sync it:
 * - `ebpf.full-sync`: event to maps programmed (core's conversion, model and node view, then the
 *   backend's render, diff and map writes), and `nft.full-sync` the same to rules applied (nft in a
 *   namespace this suite creates); `ebpf.full-sync.vs.nft`;
 * - `ebpf.partial-sync.one-endpoint`: one endpoint change (a Ready flip) from core's model to the
 *   maps updated, over `--partials` changes (default 41; target <= 2 ms median, <= 5 ms p99), and
 *   `nft.partial-sync.one-endpoint` for the same changes; `...vs.nft` (ratio of medians); the
 *   backends' own parts as `.backend`;
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
      await inNamespace(ctx, 'ebpf-bench-nft', async (ns) => run(ctx, cgroup, ns.name));
    } finally {
      rmdirSync(cgroup);
    }
  },
});

async function run(ctx: SuiteContext, cgroup: string, netns: string): Promise<void> {
  const objects = ctx.objects();
  const client = await createNftClient({ netns });
  // Sized for s50k (~550k endpoint entries, ~53k service keys); the backend's defaults hold s10k.
  // Hash maps are not preallocated: only their bucket arrays are (16 MiB at 2^20).
  const limits = { services4: 1 << 17, services6: 1 << 17, endpoints: 1 << 20 };
  const ebpf = new EbpfBackend({ cgroup, logger: SILENT_LOGGER, limits });
  const nft = new NftBackend({ nft: client, conntrack: false, log: SILENT_LOGGER });
  try {
    await ebpf.setup();
    garbageCollector()?.();
    const core = new NodeView({ nodeName: nodeName(objects.benchNode), turnBudgetMs: Infinity });
    let published: Published | undefined;
    core.addLocalConsumer({ publish: (state, changes, revision) => void (published = { state, changes, revision }) });
    const start = performance.now();
    core.model.apply(toModelEvents(objects));
    for (const kind of ['Service', 'EndpointSlice', 'Node'] as const) core.model.synced(kind);
    const first = published as Published | undefined;
    if (first === undefined) throw new Error('core published no state');
    const coreMs = performance.now() - start;
    const full = { state: first.state, changes: first.changes, full: true, revision: first.revision };
    const ebpfFull = await timed(() => ebpf.sync(full));
    const nftFull = await timed(() => nft.sync(full));
    const maps = ebpf.applied();
    ctx.log(
      `ebpf: ${first.state.services.length} services; maps: ${maps?.services4.size} services4, ` +
        `${maps?.services6.size} services6, ${maps?.endpoints.size} endpoints`,
    );
    report(ctx, 'ebpf.full-sync', measurementOf('ebpf', [coreMs + ebpfFull]));
    report(ctx, 'nft.full-sync', measurementOf('nft', [coreMs + nftFull]));
    ratio(ctx, 'ebpf.full-sync.vs.nft', coreMs + ebpfFull, coreMs + nftFull);

    const partials = Number(ctx.options['partials'] ?? 41);
    const slices = objects.endpointSlices.filter((s) => s.endpoints.length > 0);
    const samples = { core: [] as number[], ebpf: [] as number[], nft: [] as number[] };
    for (let i = 0; i < partials && !ctx.signal.aborted; i++) {
      const index = (i * 7919) % slices.length;
      const slice = flipFirstEndpoint(slices[index] as EndpointSliceObject);
      slices[index] = slice;
      published = undefined;
      const t0 = performance.now();
      core.model.apply([sliceEvent(slice)]);
      const next = published as Published | undefined;
      if (next === undefined) throw new Error(`core published nothing for ${slice.metadata.name}`);
      samples.core.push(performance.now() - t0);
      const req = { state: next.state, changes: next.changes, full: false, revision: next.revision };
      samples.ebpf.push(await timed(() => ebpf.sync(req)));
      samples.nft.push(await timed(() => nft.sync(req)));
    }
    const total = (backend: number[]) => backend.map((ms, i) => ms + (samples.core[i] ?? 0));
    const e = measurementOf('ebpf', total(samples.ebpf));
    const n = measurementOf('nft', total(samples.nft));
    report(ctx, 'ebpf.partial-sync.one-endpoint', e);
    report(ctx, 'ebpf.partial-sync.one-endpoint.backend', measurementOf('ebpf-backend', samples.ebpf));
    report(ctx, 'nft.partial-sync.one-endpoint', n);
    report(ctx, 'nft.partial-sync.one-endpoint.backend', measurementOf('nft-backend', samples.nft));
    ratio(ctx, 'ebpf.partial-sync.one-endpoint.vs.nft', e.p50, n.p50);
    // The drift check reads one slice (~20 ms) per call and goes on at the next: what holds a sync.
    const checks: number[] = [];
    for (let i = 0; i < 32 && !ctx.signal.aborted; i++) checks.push(await timed(() => ebpf.check()));
    report(ctx, 'ebpf.drift-check.slice', measurementOf('ebpf-check', checks));
  } finally {
    await ebpf.close();
    await nft.close();
    await client.close();
  }
}

const report = (ctx: SuiteContext, metric: string, m: Measurement): void => ctx.reportMeasurement(metric, m);

function ratio(ctx: SuiteContext, metric: string, subject: number, reference: number): void {
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
