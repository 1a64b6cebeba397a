/**
 * The render stage of one family: core's node-local state -> what the family's table should hold
 * (`FamilyRender`, plain data). It keeps only what rendering itself needs between syncs: the
 * endpoint slot orders and sticky port numbers, and the context of the last rewrite (whose chain
 * cache a partial sync or a resync renders with). It knows nothing of the kernel or of what was
 * applied: `TablesProgrammer` diffs and applies what it renders.
 */
import { findService, type IPFamily, type NodeLocalState, type ServiceKey } from '@kpng/core';
import type { TurnBudget } from '@kpng/kit';
import type { Contribution } from '../apply/store.js';
import type { NftConfig } from '../render/config.js';
import { renderContext, sameChainRendering, type RenderContext } from '../render/context.js';
import { nodePortAddressMatcher, renderNodeElements } from '../render/node.js';
import { renderService } from '../render/service.js';
import { SlotMemory } from '../render/slots.js';

/** One family's table as one sync wants it (only the changed Services for a partial sync). */
export interface FamilyRender {
  readonly family: IPFamily;
  readonly ctx: RenderContext;
  /** The node's own elements (canary, NodePort addresses, pod and service CIDRs). */
  readonly node: Contribution;
  /** Rendered Services by key; undefined: nothing of it belongs in the table (gone, or renders nothing). */
  readonly services: ReadonlyMap<ServiceKey, Contribution | undefined>;
  /** `services` holds every Service of the state: any other Service in the table goes. */
  readonly complete: boolean;
}

export class FamilyRenderer {
  readonly family: IPFamily;
  readonly #config: NftConfig;
  readonly #slots = new SlotMemory();
  /** The context of the last full render: partial syncs and resyncs reuse it (and its chain cache). */
  #ctx: RenderContext | undefined;

  constructor(config: NftConfig, family: IPFamily) {
    this.#config = config;
    this.family = family;
  }

  /** Every Service with a fresh context: for a rewrite of the table. */
  async renderAll(state: NodeLocalState, budget: TurnBudget): Promise<FamilyRender> {
    const ctx = renderContext(this.#config, this.family, state.node);
    this.#ctx = ctx;
    return this.#renderEvery(ctx, state, budget);
  }

  /**
   * Every Service with the last rewrite's context (a periodic resync); undefined when there was no
   * rewrite yet or chains would now render differently (the caller rewrites).
   */
  async renderResync(state: NodeLocalState, budget: TurnBudget): Promise<FamilyRender | undefined> {
    const ctx = this.#reusableContext(state);
    return ctx === undefined ? undefined : this.#renderEvery(ctx, state, budget);
  }

  /** Only the Services in `updated`; undefined when a partial sync cannot be done (the caller rewrites). */
  renderChanged(state: NodeLocalState, updated: ReadonlySet<ServiceKey>): FamilyRender | undefined {
    const ctx = this.#reusableContext(state);
    if (ctx === undefined) return undefined;
    const services = new Map<ServiceKey, Contribution | undefined>();
    for (const key of updated) {
      const svc = findService(state.services, key);
      if (svc === undefined) this.#slots.forget(key);
      services.set(key, svc === undefined ? undefined : this.#renderService(ctx, svc));
    }
    return { family: this.family, ctx, node: nodeContribution(ctx, state), services, complete: false };
  }

  /** Whether `ip` is an address this family serves NodePorts on (for conntrack cleanup). */
  nodePortAddressMatcher(state: NodeLocalState): (ip: string) => boolean {
    return nodePortAddressMatcher(this.#config, this.family, state.node);
  }

  #reusableContext(state: NodeLocalState): RenderContext | undefined {
    const previous = this.#ctx;
    if (previous === undefined) return undefined;
    return sameChainRendering(previous, renderContext(this.#config, this.family, state.node)) ? previous : undefined;
  }

  async #renderEvery(ctx: RenderContext, state: NodeLocalState, budget: TurnBudget): Promise<FamilyRender> {
    const services = new Map<ServiceKey, Contribution | undefined>();
    for (const svc of state.services) {
      services.set(svc.key, this.#renderService(ctx, svc));
      if (budget.due()) await budget.yield();
    }
    this.#slots.retain(services);
    return { family: this.family, ctx, node: nodeContribution(ctx, state), services, complete: true };
  }

  #renderService(ctx: RenderContext, svc: NodeLocalState['services'][number]): Contribution | undefined {
    const slots = this.#slots.begin(svc.key);
    const rendered = renderService(svc, ctx, slots);
    this.#slots.remember(svc.key, slots);
    return rendered.elements.length === 0 && rendered.lists.length === 0 ? undefined : rendered;
  }
}

function nodeContribution(ctx: RenderContext, state: NodeLocalState): Contribution {
  return { elements: renderNodeElements(ctx, state.node), chains: [] };
}
