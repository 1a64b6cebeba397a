/**
 * One family's table: render (full, or only the Services that changed), diff against what was
 * applied, and write the difference into the sync's transaction. Nothing is recorded as applied
 * until the caller says the transaction succeeded.
 */
import { findService, type IPFamily, type LocalService, type NodeLocalState, type ServiceKey } from '@kpng/core';
import { writeFull, writePartial } from '../apply/plan.js';
import { chainRef, elementObject, listElementObjects, type TableRef } from '../apply/objects.js';
import { deltaSize, FamilyStore } from '../apply/store.js';
import type { Transaction } from '@kpng/nftables';
import type { TurnBudget } from '@kpng/kit';
import type { NftConfig } from '../render/config.js';
import { renderContext, sameChainRendering, type RenderContext } from '../render/context.js';
import { familySyntax } from '../render/family.js';
import { cidrContains } from '../render/ip.js';
import { canaryElement, nodePortAddresses, renderNodeElements } from '../render/node.js';
import { renderService } from '../render/service.js';
import { MAP_NAMES, skeletonChains, skeletonSets } from '../render/skeleton.js';
import { SlotMemory } from '../render/slots.js';
import type { FamilyRuleset } from '../render/types.js';

const NODE_OWNER = '#node';

export interface Planned {
  /** Operations written for this family. */
  readonly operations: number;
  /** Record the plan as applied (call only after the transaction succeeded; a full plan's takes turns). */
  commit(): void | Promise<void>;
}

export class FamilyProgrammer {
  readonly family: IPFamily;
  readonly #config: NftConfig;
  readonly #maps: ReadonlySet<string>;
  #ctx: RenderContext | undefined;
  #store = new FamilyStore();
  readonly #slots = new SlotMemory();

  constructor(config: NftConfig, family: IPFamily) {
    this.family = family;
    this.#config = config;
    this.#maps = MAP_NAMES;
  }

  get ref(): TableRef {
    return { syntax: familySyntax(this.family), table: this.#config.tableName, maps: this.#maps };
  }

  /** Everything, from scratch. `reset`: the kernel's table content is unknown; drop and recreate it. */
  async planFull(tx: Transaction, state: NodeLocalState, reset: boolean, budget: TurnBudget): Promise<Planned> {
    const ctx = renderContext(this.#config, this.family, state.node);
    const store = new FamilyStore({ bulk: true });
    store.set(NODE_OWNER, { elements: renderNodeElements(ctx, state.node), chains: [] });
    for (const svc of state.services) {
      this.#renderInto(store, ctx, svc);
      if (budget.due()) await budget.yield();
    }
    const wanted = store.wantedForWrite();
    const wantedNames = new Set(wanted.chains.map((c) => c.name));
    const staleChains = reset ? [] : this.#store.appliedChains().filter((name) => !wantedNames.has(name));
    const before = tx.size;
    await writeFull(
      tx,
      this.ref,
      {
        sets: skeletonSets(ctx),
        chains: [...skeletonChains(ctx), ...wanted.chains],
        elements: wanted.elements,
        lists: wanted.lists,
        staleChains,
        reset,
      },
      budget,
    );
    return {
      operations: tx.size - before,
      commit: async () => {
        await store.commitAll(budget);
        this.#store = store;
        this.#ctx = ctx;
      },
    };
  }

  /** Only the Services in `updated`; undefined when a partial sync cannot be done (caller goes full). */
  planPartial(tx: Transaction, state: NodeLocalState, updated: ReadonlySet<ServiceKey>): Planned | undefined {
    const previous = this.#ctx;
    if (previous === undefined) return undefined;
    const ctx = renderContext(this.#config, this.family, state.node);
    if (!sameChainRendering(previous, ctx)) return undefined;
    for (const key of updated) {
      const svc = findService(state.services, key);
      if (svc === undefined) {
        this.#slots.forget(key);
        this.#store.set(key, undefined);
      } else {
        this.#renderInto(this.#store, previous, svc);
      }
    }
    this.#store.set(NODE_OWNER, { elements: renderNodeElements(previous, state.node), chains: [] });
    const delta = this.#store.delta();
    const before = tx.size;
    if (deltaSize(delta) > 0) writePartial(tx, this.ref, delta);
    return { operations: tx.size - before, commit: () => this.#store.commit() };
  }

  /**
   * A periodic full resync without rewriting: every Service re-rendered and diffed against what
   * was applied (repairs any drift of the incremental path), plus a probe of the canary element
   * that aborts the transaction if the table was deleted or flushed behind our back. Listing the
   * kernel instead costs ~2 s at s10k with nft 1.0.6 (any read fetches every element). Undefined
   * when chains would render differently (the caller rewrites).
   */
  async planResync(tx: Transaction, state: NodeLocalState, budget: TurnBudget): Promise<Planned | undefined> {
    const previous = this.#ctx;
    if (previous === undefined) return undefined;
    if (!sameChainRendering(previous, renderContext(this.#config, this.family, state.node))) return undefined;
    const present = new Set<string>(state.services.map((svc) => svc.key));
    for (const owner of [...this.#store.owners()]) {
      if (owner === NODE_OWNER || present.has(owner)) continue;
      this.#slots.forget(owner);
      this.#store.set(owner, undefined);
    }
    for (const svc of state.services) {
      this.#renderInto(this.#store, previous, svc);
      if (budget.due()) await budget.yield();
    }
    this.#store.set(NODE_OWNER, { elements: renderNodeElements(previous, state.node), chains: [] });
    const delta = this.#store.delta();
    const before = tx.size;
    if (deltaSize(delta) > 0) writePartial(tx, this.ref, delta);
    const canary = elementObject(this.ref, canaryElement(previous));
    tx.delete(canary);
    tx.add(canary);
    return { operations: tx.size - before, commit: () => this.#store.commit() };
  }

  /**
   * The drift probe run every syncPeriod, in check mode (`nft --check`: the kernel validates it,
   * nothing is committed): deleting the canary element fails when the table or the set is gone
   * (`nft flush ruleset`, `delete table`), flushing each skeleton chain fails when another program
   * deleted it (only base chains can be: every other chain is referenced). One nft call, ~20-50 ms
   * at s10k. False when nothing was applied yet (nothing to probe).
   */
  planProbe(tx: Transaction): boolean {
    const ctx = this.#ctx;
    if (ctx === undefined) return false;
    tx.delete(elementObject(this.ref, canaryElement(ctx)));
    for (const chain of skeletonChains(ctx)) tx.flush(chainRef(this.ref, chain.name));
    return true;
  }

  /**
   * The element-level probe of a full resync, in check mode: deleting every element we applied
   * fails if another program deleted one. Costs about what writing them does (hourly by default),
   * where a read of the kernel costs ~2 s at s10k.
   */
  planElementProbe(tx: Transaction): void {
    const { elements, lists } = this.#store.wantedForWrite();
    for (const element of elements) tx.delete(elementObject(this.ref, element));
    for (const list of lists) for (const element of listElementObjects(this.ref, list)) tx.delete(element);
  }

  /** The table as the store knows it (what was applied, plus anything planned and not committed). */
  ruleset(state: NodeLocalState): FamilyRuleset {
    const ctx = this.#ctx ?? renderContext(this.#config, this.family, state.node);
    const wanted = this.#store.wanted();
    return { sets: skeletonSets(ctx), chains: [...skeletonChains(ctx), ...wanted.chains], elements: wanted.elements };
  }

  /** Whether `ip` is an address this family serves NodePorts on (for conntrack cleanup). */
  nodePortAddressMatcher(state: NodeLocalState): (ip: string) => boolean {
    const ctx = this.#ctx ?? renderContext(this.#config, this.family, state.node);
    const cidrs = nodePortAddresses(ctx, state.node);
    return (ip) => cidrs.some((cidr) => cidrContains(cidr, ip));
  }

  #renderInto(store: FamilyStore, ctx: RenderContext, svc: LocalService): void {
    const slots = this.#slots.begin(svc.key);
    const rendered = renderService(svc, ctx, slots);
    this.#slots.remember(svc.key, slots);
    store.set(svc.key, rendered.elements.length === 0 && rendered.lists.length === 0 ? undefined : rendered);
  }
}
