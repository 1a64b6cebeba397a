/**
 * The nftables backend: core's `Backend` over one table per family the node has (`ip kpng`,
 * `ip6 kpng`; the other family's table is dropped). Each
 * sync renders what changed, diffs it against what was applied, and runs both families' changes
 * as ONE atomic `nft -f -` transaction. A failed transaction changes nothing in the kernel; the
 * error (nft's text, mapped to the failing operation) is logged and counted, and the next sync
 * drops and recreates the tables from scratch. A periodic full sync re-renders everything but
 * writes only the differences (and probes a canary). Stale UDP flows are cleaned after each success.
 *
 * Drift (another program changed our tables): `check`, every syncPeriod, probes the canary and the
 * skeleton chains in check mode (table flushed or deleted, a chain deleted); a full resync also
 * probes every element we applied (an element deleted). Either way the repair is a rewrite, and
 * the sync reports what it repaired for `kpng_sync_drift_repairs_total`.
 */
import {
  ConntrackTool,
  cleanStaleFlows,
  log as defaultLog,
  type Backend,
  type ConntrackCleaner,
  type DriftKinds,
  type IPFamily,
  type Logger,
  type SyncOutcome,
  type SyncRequest,
} from '@kpng/core';
import { Registry } from 'prom-client';
import { processExecer, TurnBudget } from '@kpng/kit';
import { resolveConfig, type NftConfig } from '../render/config.js';
import type { FamilyRuleset } from '../render/types.js';
import { FamilyRenderer, type FamilyRender } from './family-renderer.js';
import { createNftMetrics, NO_METRICS, type NftMetrics } from './metrics.js';
import type { NftBackendOptions } from './options.js';
import { TablesProgrammer, type Applied } from './tables-programmer.js';

export class NftBackend implements Backend {
  readonly name = 'nft';
  readonly families: readonly IPFamily[];
  readonly config: NftConfig;
  readonly #options: NftBackendOptions;
  /** render: one per configured family. */
  readonly #renderers: FamilyRenderer[];
  /** apply: every family's table, one transaction per sync. */
  readonly #programmer: TablesProgrammer;
  readonly #metrics: NftMetrics;
  readonly #conntrack: ConntrackCleaner | undefined;
  readonly #log: Logger;
  /** The kernel's table content is unknown (first sync, or after a failure): drop and recreate. */
  #needReset = true;
  /** Whether a sync applied anything yet (`rulesets`). */
  #synced = false;
  /** The families whose tables the last successful sync wrote (the node's, see `SyncRequest.families`). */
  #programmed: readonly IPFamily[] = [];
  /** Drift found by `check` and not yet repaired by a sync. */
  #drift: string[] = [];

  constructor(options: NftBackendOptions = {}) {
    this.#options = options;
    this.config = resolveConfig(options);
    this.families = this.config.families;
    this.#renderers = this.families.map((family) => new FamilyRenderer(this.config, family));
    const metrics = options.metrics;
    this.#metrics =
      metrics === undefined ? NO_METRICS : metrics instanceof Registry ? createNftMetrics(metrics) : metrics;
    this.#conntrack =
      options.conntrack === false
        ? undefined
        : (options.conntrack ??
          new ConntrackTool({
            execer: options.execer ?? processExecer,
            ...(options.netns === undefined ? {} : { netns: options.netns }),
          }));
    this.#log = options.log ?? defaultLog.with({ backend: 'nft' });
    this.#programmer = new TablesProgrammer(this.config, options, this.#metrics, this.#log);
  }

  async setup(): Promise<void> {
    await this.#programmer.client();
  }

  /** See `TablesProgrammer.probe`: one check-mode nft call; never changes the kernel. */
  async check(): Promise<DriftKinds> {
    if (this.#needReset) return []; // the next sync rewrites everything anyway
    // Only the tables the last sync wrote: a single-stack node has no table of the other family.
    const drift = await this.#programmer.probe(this.#programmed);
    if (drift.length > 0) {
      this.#drift = drift;
      this.#needReset = true;
    }
    return drift;
  }

  /** render (per family) -> apply (one transaction) -> stale conntrack flows; each stage hands to the next. */
  async sync(req: SyncRequest): Promise<SyncOutcome> {
    const started = performance.now();
    const budget = new TurnBudget(this.#options.turnBudgetMs ?? 10);
    const updated = req.changes.updatedServices;
    const renderers = this.#renderersFor(req);
    const families = renderers.map((r) => r.family);
    // A family gained or lost (the Node's addresses changed, or a first sync): rewrite from scratch,
    // and drop the tables of the families this node does not have, so a single-stack IPv4 node has
    // no `ip6` table (not even one a previous run or upstream kube-proxy left behind).
    const reset = this.#needReset || !sameFamilies(families, this.#programmed);
    const dropped = this.families.filter((f) => !families.includes(f));
    const partial = !req.full && updated !== undefined && !req.changes.nodeChanged;

    // render. Partial: the changed Services; resync: every Service, to be diffed (no flush, no
    // rewrite); either falls back to a rewrite when chains would render differently now.
    let kind: Applied['kind'] = 'rewrite';
    let renders: FamilyRender[] | undefined;
    if (!reset) {
      const rendered: (FamilyRender | undefined)[] = [];
      for (const r of renderers)
        rendered.push(partial ? r.renderChanged(req.state, updated) : await r.renderResync(req.state, budget));
      if (rendered.every((r): r is FamilyRender => r !== undefined)) {
        kind = partial ? 'partial' : 'resync';
        renders = rendered;
      }
    }
    if (renders === undefined) {
      renders = [];
      for (const r of renderers) renders.push(await r.renderAll(req.state, budget));
    }

    // apply
    let applied: Applied;
    try {
      applied = await this.#programmer.apply({ renders, kind, reset, dropped }, budget);
    } catch (e) {
      this.#needReset = true;
      throw e;
    }
    const repaired = [...this.#drift, ...applied.repaired];
    if (applied.repaired.length > 0)
      this.#log.warn('the kpng tables drifted; rewriting them', { revision: req.revision, repaired });
    this.#needReset = false;
    this.#drift = [];
    this.#synced = true;
    this.#programmed = families;
    this.#log.info('synced nftables', {
      full: applied.kind !== 'partial',
      reset: applied.reset,
      mode: applied.kind,
      revision: req.revision,
      services: req.state.services.length,
      changed: applied.kind === 'partial' ? (updated?.size ?? 0) : req.state.services.length,
      families,
      operations: applied.operations,
      ms: Math.round(performance.now() - started),
      ...(budget.yields > 0 ? { yields: budget.yields } : {}),
    });
    await this.#cleanConntrack(req, applied.kind !== 'partial', renderers);
    return repaired.length > 0 ? { repaired } : {};
  }

  async cleanup(): Promise<void> {
    // A backend made only to clean up (`--cleanup`, the compat binary's start) keeps no shell.
    const cleanupOnly = !this.#programmer.connected;
    try {
      await this.#programmer.cleanup();
      this.#needReset = true;
    } finally {
      if (cleanupOnly) await this.close();
    }
  }

  /** What the backend believes each family's table holds (after the last successful sync). */
  rulesets(): Map<IPFamily, FamilyRuleset> {
    return this.#synced ? this.#programmer.rulesets(this.#programmed) : new Map();
  }

  /** Ends the nft client's shell (when this backend created the client). */
  async close(): Promise<void> {
    await this.#programmer.close();
  }

  /** The configured families' renderers that this sync programs (`req.families`, else all of them). */
  #renderersFor(req: SyncRequest): FamilyRenderer[] {
    const wanted = req.families;
    return wanted === undefined ? this.#renderers : this.#renderers.filter((r) => wanted.includes(r.family));
  }

  async #cleanConntrack(req: SyncRequest, full: boolean, renderers: readonly FamilyRenderer[]): Promise<void> {
    if (this.#conntrack === undefined) return;
    await cleanStaleFlows(this.#conntrack, {
      services: req.state.services,
      updated: full ? undefined : req.changes.updatedServices,
      families: renderers.map((renderer) => ({
        family: renderer.family,
        nodePortAddresses: () => renderer.nodePortAddressMatcher(req.state),
      })),
      cleaned: (family, deleted, seconds) => this.#metrics.conntrackCleaned(family, deleted, seconds),
      log: this.#log,
    });
  }
}

function sameFamilies(a: readonly IPFamily[], b: readonly IPFamily[]): boolean {
  return a.length === b.length && a.every((f) => b.includes(f));
}
