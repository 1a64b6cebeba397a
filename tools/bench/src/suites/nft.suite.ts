import { rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NodeView } from '@kpng/core/runtime';
import { nodeName, type NodeLocalState, type StateChanges } from '@kpng/core';
import { NftBackend } from '@kpng/nft';
import { createNftClient } from '@kpng/nftables';
import { SILENT_LOGGER } from '@kpng/core/testing';
import { kubeProxyShape } from '../nft/kube-proxy-shape.js';
import { measurePipelineRss } from '../nft/pipeline-rss.js';
import { TimedNft } from '../nft/timed-nft.js';
import type { EndpointSliceObject } from '../kube/types.js';
import { garbageCollector } from '../runner/gc.js';
import { measurementOf } from '../runner/measure.js';
import { serializeScenario } from '../scenarios/write.js';
import type { Scenario } from '../scenarios/scenario.js';
import { flipFirstEndpoint, sliceEvent, toModelEvents } from '../scenarios/model-events.js';
import { compiledKpngNft, inNamespace, requireNamespaces } from './namespaces.js';
import { defineSuite, type SuiteContext } from './suite.js';

/**
 * The nft backend on the real nft, inside network namespaces this suite creates and deletes
 * (root only). PERFORMANCE.md's figures:
 * - `nft.full-sync`: first full sync of an instance, event to rules applied: the scenario's raw
 *   objects converted, modelled, viewed for the node, rendered, diffed and loaded by nft (target
 *   <= 2 s at s10k); split into `.core` (conversion, model, node view) and `.backend` (the
 *   backend's sync), itself `.inside-nft` (nft's process and the kernel) + `.ours` (render + diff);
 * - `nft.reference.kube-proxy-shape`: `nft -f` of the same state in kube-proxy's structure, and
 *   `nft.full-sync.vs.kube-proxy-shape`, the ratio of medians measured in this run (target <= 0.05);
 * - `nft.partial-sync.one-endpoint`: one endpoint change from core's model to rules applied,
 *   median and p99 over `--partials` changes (default 21; target <= 30 ms median), and `.inside-nft`
 *   (spawning `ip netns exec ... nft -f -`, nft and the kernel);
 * - `nft.resync`: the periodic full resync of an instance that already programmed the state;
 * - `nft.pipeline.peak-rss`: VmHWM of `kpng-nft --file` (core + backend, compiled) in a child
 *   process after its first full sync (target <= 250 MiB at s10k); `.no-services`: the same over
 *   the cluster's nodes alone (the program's own footprint).
 * Options: `--reference-runs=N` (default 1: the reference takes minutes at s10k; 0 skips it),
 * `--partials=N`, `--no-rss`, `--nft-shell=false` (nft spawned per transaction through `ip netns
 * exec`, as before `ShellExecer`, for an A/B).
 */
export default defineSuite({
  name: 'nft',
  description: 'nft backend: full sync, partial sync, resync, kube-proxy-shaped reference, peak RSS of core + backend',
  scenarios: ['s1k', 's10k', 's10k-wide'],
  async run(ctx) {
    await requireNamespaces('nft');
    const objects = ctx.objects();
    const node = nodeName(objects.benchNode);
    const totals: number[] = [];
    const coreMs: number[] = [];
    const backendMs: number[] = [];
    const inside: number[] = [];
    const resyncs: number[] = [];
    const partials: number[] = [];
    const partialsInside: number[] = [];
    let operations = 0;
    let state: NodeLocalState | undefined;
    const partialCount = Number(ctx.options['partials'] ?? 21);
    for (let run = 0; run < ctx.runs; run++) {
      await inNamespace(ctx, `nft-bench-${run}`, async (ns) => {
        // --nft-shell=false: a process per transaction (the backend's default before ShellExecer).
        const client = await createNftClient({ netns: ns.name, shell: ctx.options['nft-shell'] !== 'false' });
        const nft = new TimedNft(client);
        try {
          const backend = new NftBackend({ nft, conntrack: false, log: SILENT_LOGGER });
          garbageCollector()?.();
          // Event to rules applied: the raw objects as a source delivers them, converted, modelled,
          // viewed for the node and programmed. The split: core (conversion, model, node view), and
          // the backend's sync, itself split into nft's process + kernel and ours (render + diff).
          const start = performance.now();
          // Event to applied at once, not in turns (NodeView's turnBudgetMs).
          const core = new NodeView({ nodeName: node, turnBudgetMs: Infinity });
          let published: { state: NodeLocalState; changes: StateChanges; revision: number } | undefined;
          core.addLocalConsumer({
            publish: (state, changes, revision) => void (published = { state, changes, revision }),
          });
          core.model.apply(toModelEvents(objects));
          for (const kind of ['Service', 'EndpointSlice', 'Node'] as const) core.model.synced(kind);
          const first = published;
          if (first === undefined) throw new Error('core published no state');
          const viewed = performance.now();
          await backend.sync({
            state: first.state,
            changes: { triggerTimes: new Map(), nodeChanged: true },
            full: true,
            revision: first.revision,
          });
          const applied = performance.now();
          totals.push(applied - start);
          coreMs.push(viewed - start);
          backendMs.push(applied - viewed);
          inside.push(nft.last?.ms ?? 0);
          operations = nft.last?.operations ?? 0;
          state = first.state;
          if (run === 0) ctx.log(`nft: ${first.state.services.length} services on ${objects.benchNode}`);
          resyncs.push(
            await timed(() =>
              backend.sync({
                state: first.state,
                changes: { triggerTimes: new Map(), nodeChanged: true },
                full: true,
                revision: first.revision + 1,
              }),
            ),
          );
          if (run > 0) return;
          // One endpoint change at a time: the model, the node view, the backend.
          const slices = objects.endpointSlices.filter((s) => s.endpoints.length > 0);
          for (let i = 0; i < partialCount && !ctx.signal.aborted; i++) {
            const index = (i * 7919) % slices.length;
            const slice = flipFirstEndpoint(slices[index] as EndpointSliceObject);
            slices[index] = slice;
            partials.push(
              await timed(async () => {
                published = undefined;
                core.model.apply([sliceEvent(slice)]);
                const next = published as typeof first | undefined;
                if (next === undefined)
                  throw new Error(
                    `core published nothing for an endpoint change (${slice.metadata.name}, revision ${core.model.revision})`,
                  );
                await backend.sync({ state: next.state, changes: next.changes, full: false, revision: next.revision });
              }),
            );
            partialsInside.push(nft.last?.ms ?? 0);
          }
        } finally {
          await client.close();
        }
      });
    }
    if (state === undefined) throw new Error('no full sync ran');
    const lastState = state;
    const fullSync = measurementOf('nft.full-sync', totals);
    ctx.reportMeasurement('nft.full-sync', fullSync);
    ctx.reportMeasurement('nft.full-sync.core', measurementOf('core', coreMs));
    ctx.reportMeasurement('nft.full-sync.backend', measurementOf('backend', backendMs));
    ctx.reportMeasurement('nft.full-sync.inside-nft', measurementOf('inside-nft', inside));
    ctx.reportMeasurement(
      'nft.full-sync.ours',
      measurementOf(
        'ours',
        backendMs.map((t, i) => t - (inside[i] ?? 0)),
      ),
    );
    ctx.reportValue('nft.full-sync.operations', operations, 'count');
    ctx.reportMeasurement('nft.resync', measurementOf('resync', resyncs));
    if (partials.length > 0) {
      ctx.reportMeasurement('nft.partial-sync.one-endpoint', measurementOf('partial', partials));
      ctx.reportMeasurement(
        'nft.partial-sync.one-endpoint.inside-nft',
        measurementOf('partial-inside-nft', partialsInside),
      );
    }

    const referenceRuns = Number(ctx.options['reference-runs'] ?? 1);
    if (referenceRuns > 0) {
      const file = join(tmpdir(), `kpng-nft-reference-${process.pid}.nft`);
      await writeFile(file, kubeProxyShape(lastState));
      const reference: number[] = [];
      try {
        for (let run = 0; run < referenceRuns && !ctx.signal.aborted; run++) {
          ctx.log(`nft: kube-proxy-shaped reference, run ${run + 1}/${referenceRuns}`);
          await inNamespace(ctx, `nft-ref-${run}`, async (ns) => {
            reference.push(await timed(() => ns.exec(['nft', '-f', file], { timeoutMs: 3_600_000 })));
          });
        }
      } finally {
        await rm(file, { force: true });
      }
      const ref = measurementOf('reference', reference);
      ctx.reportMeasurement('nft.reference.kube-proxy-shape', ref);
      const ratio = fullSync.p50 / ref.p50;
      ctx.report({
        scenario: ctx.scenario,
        metric: 'nft.full-sync.vs.kube-proxy-shape',
        value: ratio,
        unit: 'x',
        n: 1,
        p50: ratio,
        p99: ratio,
      });
    }

    if (ctx.options['no-rss'] === undefined) await pipelineRss(ctx, objects);
  },
});

/**
 * `kpng-nft --file` in a child process, run from a compiled copy of core and the backend (what
 * production runs: no TypeScript loader in the process). Also measured over the same cluster with
 * no Services, so the figure splits into the program's own footprint and the cluster's.
 */
async function pipelineRss(ctx: SuiteContext, objects: Scenario): Promise<void> {
  const entry = await compiledKpngNft('nft-rss');
  const files = {
    full: join(tmpdir(), `kpng-nft-scenario-${process.pid}.json`),
    empty: join(tmpdir(), `kpng-nft-empty-${process.pid}.json`),
  };
  await writeFile(files.full, serializeScenario(objects, 'json'));
  await writeFile(files.empty, serializeScenario({ ...objects, services: [], endpointSlices: [] }, 'json'));
  try {
    for (const which of ['empty', 'full'] as const) {
      await inNamespace(ctx, `nft-rss-${which}`, async (ns) => {
        ctx.log(
          `nft: core + backend in a child process (kpng-nft --file, ${which === 'empty' ? 'no Services' : ctx.scenario})`,
        );
        const rss = await measurePipelineRss({
          file: files[which],
          nodeName: objects.benchNode,
          netns: ns.name,
          entry,
          signal: ctx.signal,
        });
        const metric = which === 'empty' ? 'nft.pipeline.peak-rss.no-services' : 'nft.pipeline.peak-rss';
        ctx.reportValue(metric, rss.peakRssBytes, 'bytes');
        if (which === 'full') ctx.reportValue('nft.pipeline.first-sync', rss.syncMs, 'ms');
      });
    }
  } finally {
    await Promise.all(Object.values(files).map((file) => rm(file, { force: true })));
  }
}

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await fn();
  return performance.now() - start;
}
