import { NodeView, computeNodeLocalState } from '@kpng/core/runtime';
import { nodeName } from '@kpng/core';
import { measureStream } from '../stream/measure.js';
import type { Scenario } from '../scenarios/scenario.js';
import { summarize } from '../runner/stats.js';
import { flipFirstEndpoint, sliceEvent, toModelEvents } from '../scenarios/model-events.js';
import { defineSuite } from './suite.js';

/**
 * Core's own figures (PERFORMANCE.md): loading a scenario into the model and the node-local view,
 * recomputing the view after ONE endpoint change (target <= 5 ms at s10k, proportional to the
 * change), and streaming the full state over the unix socket (target <= 300 ms at s10k).
 * References measured in the same run: a from-scratch node view (what KPNG did on every change)
 * and a JSON round trip of the same state.
 */
export default defineSuite({
  name: 'core',
  description: 'model load, node-local recompute after one endpoint change, full-state stream',
  scenarios: ['s1k', 's10k', 's10k-wide'],
  async run(ctx) {
    const objects = ctx.objects();
    const node = nodeName(objects.benchNode);
    const events = toModelEvents(objects);
    ctx.reportValue('model.objects', events.length, 'objects');

    const load = () => {
      // The load's whole cost at once, not in turns (NodeView's turnBudgetMs).
      const core = new NodeView({ nodeName: node, turnBudgetMs: Infinity });
      core.model.apply(events);
      for (const kind of ['Service', 'EndpointSlice', 'Node'] as const) core.model.synced(kind);
      return core;
    };
    ctx.reportMeasurement('core.load', await ctx.measure('core.load', load, { runs: Math.min(ctx.runs, 3) }));

    const core = load();
    let changes = 0;
    let revision = core.model.revision;
    const slices = objects.endpointSlices.filter((s) => s.endpoints.length > 0);
    // Every sample must change something: each slice's first endpoint flips from the state it is in
    // now (the model drops an upsert identical to what it holds, which costs next to nothing).
    const oneEndpointChange = () => {
      const index = changes++ % slices.length;
      const slice = flipFirstEndpoint(slices[index]!);
      slices[index] = slice;
      core.model.apply([sliceEvent(slice)]);
      if (core.model.revision === revision)
        throw new Error(`an endpoint change committed no revision (${slice.metadata.name})`);
      revision = core.model.revision;
    };
    await ctx.measureAgainst(
      'core.recompute.one-endpoint',
      oneEndpointChange,
      {
        name: 'full-node-view',
        fn: () => computeNodeLocalState(core.model, node),
      },
      { runs: Math.max(ctx.runs, 50), warmup: 20 },
    );

    const shape = streamShape(objects);
    const stream = await measureStream({
      services: shape.services,
      endpointsPerService: shape.endpointsPerService,
      runs: ctx.runs,
    });
    ctx.reportValue('stream.full-state.bytes', stream.bytes, 'bytes');
    ctx.report(row(ctx.scenario, 'stream.full-state', stream.coldMs));
    ctx.report(row(ctx.scenario, 'stream.full-state.cpu', stream.coldCpuMs));
    ctx.report(row(ctx.scenario, 'stream.one-service-changed', stream.warmMs));
    if (stream.jsonReferenceMs) ctx.report(row(ctx.scenario, 'stream.json-reference', stream.jsonReferenceMs));
    ctx.log(`node view at ${ctx.scenario}: ${core.state?.services.length ?? 0} services for ${node as string}`);
  },
});

function streamShape(s: Scenario): { services: number; endpointsPerService: number } {
  const endpoints = s.endpointSlices.reduce((n, sl) => n + sl.endpoints.length, 0);
  return { services: s.services.length, endpointsPerService: Math.max(1, Math.round(endpoints / s.services.length)) };
}

function row(scenario: string, metric: string, samples: readonly number[]) {
  const s = summarize(samples);
  return { scenario, metric, value: s.p50, unit: 'ms', n: s.n, p50: s.p50, p99: s.p99 };
}
