import { nodeName, type NodeLocalState } from '@kpng/core';
import { NodeView } from '@kpng/core/runtime';
import { NftBackend } from '@kpng/nft';
import { garbageCollector } from '../runner/gc.js';
import { toModelEvents } from '../scenarios/model-events.js';
import type { Scenario } from '../scenarios/scenario.js';
import { inNamespace, requireNamespaces } from './namespaces.js';
import { defineSuite, type SuiteContext } from './suite.js';

/**
 * What each part of core + the nft backend keeps in memory (PERFORMANCE.md: peak RSS <= 250 MiB at
 * s10k, "say what each part costs"), measured in this process as the growth of the V8 heap (plus
 * array buffers) after a full garbage collection, one part at a time:
 * - `memory.model`: the global model holding the scenario: core's converted objects and its indexes,
 *   converted from a JSON parse of the scenario (as a source reads it; the parsed raw objects are
 *   dropped before measuring);
 * - `memory.node-view`: the node-local view core publishes, on top of the model;
 * - `memory.nft.retained`: what the nft backend keeps after its first full sync (its render and
 *   ownership caches), programming a namespace this suite creates; `memory.nft.peak-heap`: the
 *   largest heap seen while it syncs (sampled every 5 ms), above what was there before: the
 *   transient text and operations of the transaction.
 * Module load and the kube source's buffers are the proxy suite's `proxy.peak-rss.no-services`.
 */
export default defineSuite({
  name: 'memory',
  description: 'retained heap per part: model, node view, nft backend (retained and transient)',
  scenarios: ['s1k', 's10k', 's10k-wide'],
  async run(ctx) {
    const gc = garbageCollector();
    if (gc === undefined) throw new Error('the memory suite needs gc (node --expose-gc)');
    await requireNamespaces('memory');
    const used = (): number => {
      gc();
      const m = process.memoryUsage();
      return m.heapUsed + m.arrayBuffers;
    };
    const objects = ctx.objects();
    const node = nodeName(objects.benchNode);
    for (let run = 0; run < ctx.runs && !ctx.signal.aborted; run++) {
      // The objects as a source meets them: parsed from JSON, each string its own copy.
      const json = JSON.stringify(objects);
      const before = used();
      let events = toModelEvents(JSON.parse(json) as Scenario);
      const core = new NodeView({ nodeName: node });
      core.model.apply(events);
      events = [];
      const model = used();
      ctx.reportValue('memory.model', model - before, 'bytes');
      const state = await firstState(core);
      const view = used();
      ctx.reportValue('memory.node-view', view - model, 'bytes');
      await inNamespace(ctx, `memory-${run}`, async (ns) => {
        const backend = new NftBackend({ netns: ns.name, conntrack: false });
        try {
          await backend.setup();
          const start = used();
          const peak = await sampledPeak(() =>
            backend.sync({ state, changes: { triggerTimes: new Map(), nodeChanged: true }, full: true, revision: 1 }),
          );
          ctx.reportValue('memory.nft.peak-heap', peak - start, 'bytes');
          ctx.reportValue('memory.nft.retained', used() - start, 'bytes');
        } finally {
          await backend.cleanup().catch(() => undefined);
          await backend.close();
        }
      });
      logRss(ctx);
    }
  },
});

/** Syncs every kind and waits for the first node-local state (it may take several turns). */
function firstState(core: NodeView): Promise<NodeLocalState> {
  return new Promise((resolve) => {
    core.addLocalConsumer({ publish: (state) => resolve(state) });
    for (const kind of ['Service', 'EndpointSlice', 'Node'] as const) core.model.synced(kind);
  });
}

/** The largest heap (plus array buffers) seen every 5 ms while `fn` runs. */
async function sampledPeak(fn: () => Promise<unknown>): Promise<number> {
  let peak = 0;
  const sample = (): void => {
    const m = process.memoryUsage();
    peak = Math.max(peak, m.heapUsed + m.arrayBuffers);
  };
  const timer = setInterval(sample, 5);
  try {
    await fn();
  } finally {
    clearInterval(timer);
    sample();
  }
  return peak;
}

function logRss(ctx: SuiteContext): void {
  ctx.log(`memory: rss now ${Math.round(process.memoryUsage().rss / 2 ** 20)} MiB`);
}
