/**
 * The apply stage: what `FamilyRenderer` rendered for each family -> the kernel. It keeps what
 * was applied to each family's table (`FamilyStore`, so a sync never lists the kernel), diffs the
 * renders against it, writes every family's difference into ONE `nft -f -` transaction, runs it,
 * and records the result as applied only once the transaction succeeded. It never renders and
 * never calls back into the backend: a failure is thrown (logged and counted here), drift it
 * found and repaired is in the result.
 */
import { ErrorCodes, KpngError, type IPFamily, type Logger, type ServiceKey } from '@kpng/core';
import {
  createNftClient,
  describeObject,
  isNotFound,
  isTimeout,
  NftError,
  type Nft,
  type Transaction,
} from '@kpng/nftables';
import type { TurnBudget } from '@kpng/kit';
import { chainRef, elementObject, listElementObjects, type TableRef } from '../apply/objects.js';
import { writeCleanup, writeFull, writePartial } from '../apply/plan.js';
import { deltaSize, FamilyStore } from '../apply/store.js';
import type { NftConfig } from '../render/config.js';
import type { RenderContext } from '../render/context.js';
import { familySyntax } from '../render/family.js';
import { canaryElement } from '../render/node.js';
import { MAP_NAMES, skeletonChains, skeletonSets } from '../render/skeleton.js';
import type { FamilyRuleset } from '../render/types.js';
import type { FamilyRender } from './family-renderer.js';
import type { NftMetrics } from './metrics.js';
import { DEFAULT_WRITE_TIMEOUT_MS, type NftBackendOptions } from './options.js';

/** The node's own elements are owned by this pseudo-Service in each family's store. */
const NODE_OWNER = '#node';

export type ApplyKind = 'partial' | 'resync' | 'rewrite';

export interface ApplyRequest {
  /** One render per family this sync programs (a rewrite's and a resync's are `complete`). */
  readonly renders: readonly FamilyRender[];
  /** partial: the changed Services; resync: every Service, diffed; rewrite: every Service, rewritten. */
  readonly kind: ApplyKind;
  /** Rewrite only: the kernel's content is unknown; drop and recreate the tables, and drop `dropped`'s. */
  readonly reset: boolean;
  /** Families this node no longer has: their tables go with a reset. */
  readonly dropped: readonly IPFamily[];
}

export interface Applied {
  /** What was done: a resync whose probes found drift ends as a rewrite. */
  readonly kind: ApplyKind;
  readonly reset: boolean;
  /** nft operations written. */
  readonly operations: number;
  /** Drift a resync found and repaired (`table`: deleted or flushed; `element`: an element deleted). */
  readonly repaired: readonly string[];
}

type ClientOptions = Pick<NftBackendOptions, 'nft' | 'execer' | 'netns' | 'nftShell' | 'writeTimeoutMs'>;

interface AppliedFamily {
  readonly store: FamilyStore;
  readonly ctx: RenderContext;
}

export class TablesProgrammer {
  readonly #config: NftConfig;
  readonly #options: ClientOptions;
  readonly #metrics: NftMetrics;
  readonly #log: Logger;
  readonly #applied = new Map<IPFamily, AppliedFamily>();
  #nft: Nft | undefined;

  constructor(config: NftConfig, options: ClientOptions, metrics: NftMetrics, log: Logger) {
    this.#config = config;
    this.#options = options;
    this.#metrics = metrics;
    this.#log = log;
    this.#nft = options.nft;
  }

  /** The family's table, as nft names it. */
  ref(family: IPFamily): TableRef {
    return { syntax: familySyntax(family), table: this.#config.tableName, maps: MAP_NAMES };
  }

  async apply(req: ApplyRequest, budget: TurnBudget): Promise<Applied> {
    const nft = await this.client();
    const families = req.renders.map((r) => r.family);
    if (req.kind !== 'rewrite' && req.renders.every((r) => this.#applied.has(r.family))) {
      const tx = nft.newTransaction();
      const stores: FamilyStore[] = [];
      for (const render of req.renders) stores.push(await this.#writeDelta(tx, render, req.kind === 'resync', budget));
      const operations = tx.size;
      // A resync whose canary is gone found the table deleted or flushed: rewrite it from scratch.
      if (!(await this.#run(nft, tx, { drift: req.kind === 'resync', families })))
        return this.#rewrite(nft, req, true, ['table'], budget);
      for (const store of stores) store.commit();
      if (req.kind === 'resync' && !(await this.#elementsIntact(nft, families)))
        // Someone deleted elements: what the resync applied is recorded; now rewrite it all.
        return this.#rewrite(nft, req, false, ['element'], budget);
      return { kind: req.kind, reset: false, operations, repaired: [] };
    }
    return this.#rewrite(nft, req, req.reset, [], budget);
  }

  /**
   * The drift probe run every syncPeriod, in check mode (`nft --check`: the kernel validates it,
   * nothing is committed): deleting the canary element fails when the table or the set is gone
   * (`nft flush ruleset`, `delete table`), flushing each skeleton chain fails when another program
   * deleted it (only base chains can be: every other chain is referenced). One nft call (its cost at
   * s10k: docs/PERFORMANCE.md). What drifted: `table` or `chain`; none when nothing was applied.
   */
  async probe(families: readonly IPFamily[]): Promise<string[]> {
    const nft = await this.client();
    const tx = nft.newTransaction();
    for (const family of families) {
      const applied = this.#applied.get(family);
      if (applied === undefined) continue;
      const ref = this.ref(family);
      tx.delete(elementObject(ref, canaryElement(applied.ctx)));
      for (const chain of skeletonChains(applied.ctx)) tx.flush(chainRef(ref, chain.name));
    }
    if (tx.size === 0) return [];
    try {
      await nft.check(tx);
      return [];
    } catch (e) {
      if (!isNotFound(e)) throw e;
      // The canary is probed first: if it failed, the table (or its set) is gone, else a chain is.
      const lost = (e as NftError).failures.map((f) => f.operation?.object.kind);
      return [lost.includes('chain') && !lost.includes('element') ? 'chain' : 'table'];
    }
  }

  /** Deletes both families' tables, whatever is configured now: a previous run may have programmed the other. */
  async cleanup(): Promise<void> {
    const nft = await this.client();
    const tx = nft.newTransaction();
    for (const family of ['IPv4', 'IPv6'] as const) writeCleanup(tx, this.ref(family));
    await nft.run(tx);
  }

  /** The tables as the stores know them (what was applied), for the given families. */
  rulesets(families: readonly IPFamily[]): Map<IPFamily, FamilyRuleset> {
    const out = new Map<IPFamily, FamilyRuleset>();
    for (const family of families) {
      const applied = this.#applied.get(family);
      if (applied === undefined) continue;
      const wanted = applied.store.wanted();
      out.set(family, {
        sets: skeletonSets(applied.ctx),
        chains: [...skeletonChains(applied.ctx), ...wanted.chains],
        elements: wanted.elements,
      });
    }
    return out;
  }

  /** Whether the nft client exists (given, or created by `client()`). */
  get connected(): boolean {
    return this.#nft !== undefined;
  }

  async client(): Promise<Nft> {
    if (this.#nft === undefined) {
      const { execer, netns } = this.#options;
      this.#nft = await createNftClient({
        ...(execer === undefined ? {} : { execer }),
        ...(netns === undefined ? {} : { netns }),
        shell: this.#options.nftShell ?? true,
        timeoutMs: this.#options.writeTimeoutMs ?? DEFAULT_WRITE_TIMEOUT_MS,
      });
    }
    return this.#nft;
  }

  /** Ends the nft client's shell (when this programmer created the client). */
  async close(): Promise<void> {
    if (this.#options.nft === undefined) await this.#nft?.close?.();
  }

  /** A partial sync's or a resync's difference, written into `tx`; the store records it on commit. */
  async #writeDelta(tx: Transaction, render: FamilyRender, canary: boolean, budget: TurnBudget): Promise<FamilyStore> {
    const { store } = this.#applied.get(render.family)!;
    if (render.complete) {
      for (const owner of [...store.owners()])
        if (owner !== NODE_OWNER && !render.services.has(owner as ServiceKey)) store.set(owner, undefined);
    }
    for (const [key, contribution] of render.services) {
      store.set(key, contribution);
      if (budget.due()) await budget.yield();
    }
    store.set(NODE_OWNER, render.node);
    const ref = this.ref(render.family);
    const delta = store.delta();
    if (deltaSize(delta) > 0) writePartial(tx, ref, delta);
    if (canary) {
      const element = elementObject(ref, canaryElement(render.ctx));
      tx.delete(element);
      tx.add(element);
    }
    return store;
  }

  /** Every family's table from its (complete) render: written whole, stale chains deleted. */
  async #rewrite(
    nft: Nft,
    req: ApplyRequest,
    reset: boolean,
    repaired: string[],
    budget: TurnBudget,
  ): Promise<Applied> {
    const tx = nft.newTransaction();
    const written: { family: IPFamily; store: FamilyStore; ctx: RenderContext }[] = [];
    for (const render of req.renders) {
      const { ctx } = render;
      const store = new FamilyStore({ bulk: true });
      store.set(NODE_OWNER, render.node);
      for (const [key, contribution] of render.services) {
        if (contribution !== undefined) store.set(key, contribution);
        if (budget.due()) await budget.yield();
      }
      const wanted = store.wantedForWrite();
      const wantedNames = new Set(wanted.chains.map((c) => c.name));
      const previous = this.#applied.get(render.family)?.store;
      const staleChains =
        reset || previous === undefined ? [] : previous.appliedChains().filter((name) => !wantedNames.has(name));
      await writeFull(
        tx,
        this.ref(render.family),
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
      written.push({ family: render.family, store, ctx });
    }
    if (reset) for (const family of req.dropped) writeCleanup(tx, this.ref(family));
    const operations = tx.size;
    await this.#run(nft, tx, { families: req.renders.map((r) => r.family) });
    for (const { family, store, ctx } of written) {
      await store.commitAll(budget);
      this.#applied.set(family, { store, ctx });
    }
    if (reset) for (const family of req.dropped) this.#applied.delete(family);
    return { kind: 'rewrite', reset, operations, repaired };
  }

  /**
   * The element-level probe of a resync, in check mode: deleting every element we applied fails if
   * another program deleted one. Costs about what writing them does (hourly by default), where a
   * read of the kernel costs far more (docs/PERFORMANCE.md).
   */
  async #elementsIntact(nft: Nft, families: readonly IPFamily[]): Promise<boolean> {
    const tx = nft.newTransaction();
    for (const family of families) {
      const applied = this.#applied.get(family);
      if (applied === undefined) continue;
      const ref = this.ref(family);
      const { elements, lists } = applied.store.wantedForWrite();
      for (const element of elements) tx.delete(elementObject(ref, element));
      for (const list of lists) for (const element of listElementObjects(ref, list)) tx.delete(element);
    }
    try {
      await nft.check(tx);
      return true;
    } catch (e) {
      if (isNotFound(e)) return false;
      // The resync itself was applied: a probe that cannot run must not fail it.
      this.#log.warn('element drift probe failed; assuming the elements are intact', {
        error: e instanceof Error ? e.message : String(e),
      });
      return true;
    }
  }

  /**
   * Runs one transaction. With `drift`, a not-found failure (the canary probe) resolves false
   * instead of failing: nothing was applied, and the caller rewrites everything.
   */
  async #run(
    nft: Nft,
    tx: Transaction,
    options: { readonly drift?: boolean; readonly families: readonly IPFamily[] },
  ): Promise<boolean> {
    if (tx.size === 0) return true;
    try {
      await nft.run(tx);
      return true;
    } catch (e) {
      if (options.drift === true && isNotFound(e)) return false;
      const failed = e instanceof NftError ? e.operation : undefined;
      const family: IPFamily | undefined =
        failed === undefined ? undefined : failed.object.family === 'ip6' ? 'IPv6' : 'IPv4';
      for (const f of family === undefined ? options.families : [family]) this.#metrics.syncFailed(f);
      this.#log.error('nftables sync failed; the previous rules stay in place and the next sync is a full one', {
        error: e instanceof Error ? e.message : String(e),
        ...(e instanceof NftError && e.line !== undefined ? { line: e.line } : {}),
        ...(failed === undefined ? {} : { operation: `${failed.verb} ${describeObject(failed.object)}` }),
        operations: tx.size,
      });
      // A timeout: nft was killed, its transaction applied whole or not at all; the caller's retry rewrites.
      throw new KpngError(
        isTimeout(e) ? ErrorCodes.WriteTimedOut : ErrorCodes.SyncFailed,
        `nft transaction failed: ${e instanceof Error ? e.message : String(e)}`,
        { cause: e },
      );
    }
  }
}
