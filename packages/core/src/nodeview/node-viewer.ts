/**
 * The node-local view, kept incrementally: each update recomputes only the Services the caller says
 * changed, and reports only those whose local form really differs. At 10,000 Services the cost of
 * one endpoint change is one Service's recomputation plus one array copy.
 */
import type { ModelReader } from '../model/reader.js';
import type { NodeName, ServiceKey } from '../model/types.js';
import { buildLocalService } from './build-local-service.js';
import { localNodeEqual, localServiceEqual } from './equal.js';
import { localNodeOf, nodeContextOf, sameNodeContext, type NodeContext } from './node-context.js';
import { SortedServices } from './sorted-services.js';
import type { LocalNode, LocalService, NodeLocalState } from './types.js';

export interface NodeViewUpdate {
  readonly state: NodeLocalState;
  /** Services that appeared, disappeared or changed their local form in this update. */
  readonly updatedServices: ReadonlySet<ServiceKey>;
}

/**
 * One update, done in steps: `step(due)` recomputes Services until `due()` says the caller's turn is
 * spent, and returns whether every Service is done; `finish()` then gives the new state. The model
 * may change between steps: a Service read before its change is stale, so the caller recomputes the
 * Services changed meanwhile in a next update (NodeView does). The state only moves at `finish()`.
 */
export interface ViewRun {
  step(due: () => boolean): boolean;
  finish(): NodeViewUpdate;
}

export class NodeViewer {
  readonly #nodeName: NodeName;
  readonly #services = new SortedServices();
  #state: NodeLocalState | undefined;
  #context: NodeContext | undefined;

  constructor(nodeName: NodeName) {
    this.#nodeName = nodeName;
  }

  /**
   * @param changed Services touched since the previous update (their Service or slices), or 'all'.
   * @param nodeChanged this node's Node object (or the service CIDRs) changed; it is re-read (always on the first update).
   *   A change of zone or addresses recomputes every Service, since hints and source ranges use them.
   */
  update(model: ModelReader, changed: ReadonlySet<ServiceKey> | 'all', nodeChanged: boolean): NodeViewUpdate {
    const run = this.begin(model, changed, nodeChanged);
    run.step(() => false);
    return run.finish();
  }

  /** `update` in steps, for callers that give the event loop turns in between (see `ViewRun`). */
  begin(model: ModelReader, changed: ReadonlySet<ServiceKey> | 'all', nodeChanged: boolean): ViewRun {
    const previous = this.#state;
    const node = previous === undefined || nodeChanged ? this.#readNode(model, previous?.node) : previous.node;
    const context = this.#context !== undefined && node === previous?.node ? this.#context : nodeContextOf(node);
    const recomputeAll = changed === 'all' || this.#context === undefined || !sameNodeContext(context, this.#context);
    this.#context = context;
    const work = recomputeAll ? this.#recomputeAll(model, context) : this.#recomputeSome(model, changed, context);
    let done = false;
    return {
      step: (due) => (done ||= work.step(due)),
      finish: () => {
        if (!done) throw new Error('node view update finished before its last step');
        const updated = work.finish();
        // Unchanged parts keep their identity, so consumers can compare states by reference.
        const services = previous !== undefined && updated.size === 0 ? previous.services : this.#services.snapshot();
        const state =
          previous !== undefined && services === previous.services && node === previous.node
            ? previous
            : { node, services };
        this.#state = state;
        return { state, updatedServices: updated };
      },
    };
  }

  #recomputeSome(model: ModelReader, changed: Iterable<ServiceKey>, context: NodeContext): Work {
    const updated = new Set<ServiceKey>();
    return {
      step: stepper([...changed], (key) => {
        const next = localServiceOf(model, key, context);
        const current = this.#services.get(key);
        if (next === undefined) {
          if (this.#services.delete(key)) updated.add(key);
        } else if (current === undefined || !localServiceEqual(current, next)) {
          this.#services.set(next);
          updated.add(key);
        }
      }),
      finish: () => updated,
    };
  }

  /** Every Service again; previous objects are kept where equal, so identity still means "unchanged". */
  #recomputeAll(model: ModelReader, context: NodeContext): Work {
    const updated = new Set<ServiceKey>();
    const kept = new Map<ServiceKey, LocalService>();
    return {
      step: stepper([...model.serviceKeys()], (key) => {
        const next = localServiceOf(model, key, context);
        if (next === undefined) return;
        const current = this.#services.get(key);
        if (current !== undefined && localServiceEqual(current, next)) {
          kept.set(key, current);
        } else {
          kept.set(key, next);
          updated.add(key);
        }
      }),
      finish: () => {
        for (const key of this.#services.keys()) if (!kept.has(key)) updated.add(key);
        this.#services.reset(kept.values());
        return updated;
      },
    };
  }

  /** The last state produced, if any. */
  get state(): NodeLocalState | undefined {
    return this.#state;
  }

  /** Keeps the previous LocalNode object when nothing in it changed, so identity means equality. */
  #readNode(model: ModelReader, previous: LocalNode | undefined): LocalNode {
    const node = localNodeOf(this.#nodeName, model.node(this.#nodeName), model.serviceCIDRs?.() ?? []);
    return previous !== undefined && localNodeEqual(previous, node) ? previous : node;
  }
}

/** A part of an update: `step` as in `ViewRun`, `finish` gives the Services whose local form changed. */
interface Work {
  step(due: () => boolean): boolean;
  finish(): Set<ServiceKey>;
}

/** `each` over `keys` in steps: a step ends when `due()` says so, and tells whether every key is done. */
function stepper(keys: readonly ServiceKey[], each: (key: ServiceKey) => void): (due: () => boolean) => boolean {
  let i = 0;
  return (due) => {
    while (i < keys.length) {
      each(keys[i++]!);
      if (i < keys.length && due()) return false;
    }
    return true;
  };
}

function localServiceOf(model: ModelReader, key: ServiceKey, context: NodeContext): LocalService | undefined {
  const svc = model.service(key);
  return svc === undefined ? undefined : buildLocalService(svc, model.slicesOf(key), context);
}

/** The whole node-local state at once, without history (for --dry-run and tests). */
export function computeNodeLocalState(model: ModelReader, nodeName: NodeName): NodeLocalState {
  return new NodeViewer(nodeName).update(model, 'all', true).state;
}
