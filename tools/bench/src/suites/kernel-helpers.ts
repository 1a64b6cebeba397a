/**
 * What the kernel-backend suites (nft, iptables) share: core fed with the scenario (its published
 * node-local states), a namespace per run that is always deleted, timing, and the commonest real
 * change (an endpoint's Ready flip).
 */
import { nodeName, type NodeLocalState, type StateChanges } from '@kpng/core';
import { NodeView } from '@kpng/core/runtime';
import type { EndpointSliceObject } from '../kube/types.js';
import { sliceEvent, toModelEvents } from '../scenarios/model-events.js';
import type { Scenario } from '../scenarios/scenario.js';

export interface Published {
  readonly state: NodeLocalState;
  readonly changes: StateChanges;
  readonly revision: number;
}

/** A NodeView over the scenario's objects: its first published state, and `change(slice)` for the next one. */
export function coreOver(objects: Scenario): {
  readonly first: Published;
  change(slice: EndpointSliceObject): Published;
} {
  // Figures of the work itself: the first view at once, not in turns (NodeView's turnBudgetMs).
  const core = new NodeView({ nodeName: nodeName(objects.benchNode), turnBudgetMs: Infinity });
  let published: Published | undefined;
  core.addLocalConsumer({ publish: (state, changes, revision) => void (published = { state, changes, revision }) });
  core.model.apply(toModelEvents(objects));
  for (const kind of ['Service', 'EndpointSlice', 'Node'] as const) core.model.synced(kind);
  const first = published as Published | undefined;
  if (first === undefined) throw new Error('core published no state');
  return {
    first,
    change(slice) {
      published = undefined;
      core.model.apply([sliceEvent(slice)]);
      const next = published as Published | undefined;
      if (next === undefined)
        throw new Error(
          `core published nothing for an endpoint change (${slice.metadata.name}, revision ${core.model.revision})`,
        );
      return next;
    },
  };
}

export { inNamespace } from './namespaces.js';

export async function timed(fn: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await fn();
  return performance.now() - start;
}

/** A Ready flip of the slice's first endpoint (to terminating and back): the commonest real change. */

export { flipFirstEndpoint } from '../scenarios/model-events.js';
