import { NodeView, computeNodeLocalState } from '@kpng/core/runtime';
import { nodeName, type NodeLocalState, type ServiceKey, type SyncRequest } from '@kpng/core';
import { WinKernelBackend } from '@kpng/win-kernel';
import { FakeHns, SILENT } from '@kpng/win-kernel/testing';
import { flipFirstEndpoint, sliceEvent, toModelEvents } from '../scenarios/model-events.js';
import { defineSuite } from './suite.js';

/**
 * The Windows backend's own cost, against the fake HNS (no Windows here: HNS's own time is not in
 * these figures). A full sync into an empty HNS (render, diff, every create), a periodic full
 * resync with nothing changed (re-read HNS, render everything, write nothing), and a partial sync
 * after ONE endpoint change (the target: proportional to the change), with the full resync as the
 * reference measured in the same run.
 */
export default defineSuite({
  name: 'win-kernel',
  description: 'HNS backend against the fake HNS: full sync, full resync, partial sync after one endpoint change',
  scenarios: ['s1k', 's10k'],
  async run(ctx) {
    const objects = ctx.objects();
    const node = nodeName(objects.benchNode);
    const core = new NodeView({ nodeName: node, turnBudgetMs: Infinity });
    core.model.apply(toModelEvents(objects));
    for (const kind of ['Service', 'EndpointSlice', 'Node'] as const) core.model.synced(kind);
    const state = core.state ?? computeNodeLocalState(core.model, node);

    const hns = new FakeHns();
    const network = hns.addNetwork({ name: 'cbr0', type: 'L2Bridge' });
    for (const ip of localEndpointIps(state)) hns.addLocalEndpoint(network, ip);
    const backend = new WinKernelBackend({ hns, networkName: 'cbr0', log: SILENT });
    let revision = 0;
    const sync = (s: NodeLocalState, updated?: ReadonlySet<ServiceKey>) => {
      const req: SyncRequest = {
        state: s,
        changes: {
          triggerTimes: new Map(),
          nodeChanged: false,
          ...(updated === undefined ? {} : { updatedServices: updated }),
        },
        full: updated === undefined,
        revision: ++revision,
      };
      return backend.sync(req);
    };

    const started = performance.now();
    await sync(state);
    ctx.reportValue('win-kernel.full-sync.empty-hns', performance.now() - started, 'ms');
    ctx.reportValue('win-kernel.load-balancers', hns.loadBalancers().length, 'load balancers');
    ctx.reportValue('win-kernel.hns-calls.full-sync', hns.calls.length, 'calls');

    // One endpoint's Ready flips back and forth: each partial sync rewrites that Service's load balancers.
    const slice = objects.endpointSlices.find((s) => s.endpoints.length > 1)!;
    const service =
      `${slice.metadata.namespace}/${slice.metadata.labels?.['kubernetes.io/service-name'] ?? ''}` as ServiceKey;
    let flipped = slice;
    let current = state;
    const partial = async () => {
      core.model.apply([sliceEvent((flipped = flipFirstEndpoint(flipped)))]);
      current = core.state!; // core's node view follows the change incrementally
      hns.clearCalls();
      await sync(current, new Set([service]));
    };
    await ctx.measureAgainst(
      'win-kernel.partial.one-endpoint',
      partial,
      { name: 'full-resync', fn: () => sync(current) },
      {
        runs: Math.min(Math.max(ctx.runs, 5), 10),
        warmup: 2,
      },
    );
    ctx.reportValue('win-kernel.hns-calls.partial', hns.calls.length, 'calls');
  },
});

function localEndpointIps(state: NodeLocalState): Set<string> {
  const ips = new Set<string>();
  for (const svc of state.services) {
    for (const port of svc.ports) {
      for (const eps of Object.values(port.endpoints))
        for (const ep of eps?.allReachable ?? []) if (ep.isLocal) ips.add(ep.ip);
    }
  }
  return ips;
}
