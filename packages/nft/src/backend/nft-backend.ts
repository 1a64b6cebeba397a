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
  ErrorCodes,
  findService,
  KpngError,
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
import { writeCleanup } from '../apply/plan.js';
import {
  createNftClient,
  describeObject,
  isNotFound,
  isTimeout,
  NftError,
  type Nft,
  type Transaction,
} from '@kpng/nftables';
import { processExecer, TurnBudget } from '@kpng/kit';
import { resolveConfig, type NftConfig } from '../render/config.js';
import type { FamilyRuleset } from '../render/types.js';
import { FamilyProgrammer, type Planned } from './family-programmer.js';
import { createNftMetrics, NO_METRICS, type NftMetrics } from './metrics.js';
import { DEFAULT_WRITE_TIMEOUT_MS, type NftBackendOptions } from './options.js';

export class NftBackend implements Backend {
  readonly name = 'nft';
  readonly families: readonly IPFamily[];
  readonly config: NftConfig;
  readonly #options: NftBackendOptions;
  readonly #programmers: FamilyProgrammer[];
  readonly #metrics: NftMetrics;
  readonly #conntrack: ConntrackCleaner | undefined;
  readonly #log: Logger;
  #nft: Nft | undefined;
  /** The kernel's table content is unknown (first sync, or after a failure): drop and recreate. */
  #needReset = true;
  #lastState: SyncRequest['state'] | undefined;
  /** The families whose tables the last successful sync wrote (the node's, see `SyncRequest.families`). */
  #programmed: readonly IPFamily[] = [];
  /** Drift found by `check` and not yet repaired by a sync. */
  #drift: string[] = [];

  constructor(options: NftBackendOptions = {}) {
    this.#options = options;
    this.config = resolveConfig(options);
    this.families = this.config.families;
    this.#programmers = this.families.map((family) => new FamilyProgrammer(this.config, family));
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
    this.#nft = options.nft;
  }

  async setup(): Promise<void> {
    await this.#client();
  }

  /** See the file comment: one check-mode nft call; never changes the kernel. */
  async check(): Promise<DriftKinds> {
    if (this.#needReset) return []; // the next sync rewrites everything anyway
    const nft = await this.#client();
    const tx = nft.newTransaction();
    // Only the tables the last sync wrote: a single-stack node has no table of the other family.
    for (const p of this.#programmers.filter((x) => this.#programmed.includes(x.family))) p.planProbe(tx);
    if (tx.size === 0) return [];
    try {
      await nft.check(tx);
      return [];
    } catch (e) {
      if (!isNotFound(e)) throw e;
      // The canary is probed first: if it failed, the table (or its set) is gone, else a chain is.
      const lost = (e as NftError).failures.map((f) => f.operation?.object.kind);
      this.#drift = [lost.includes('chain') && !lost.includes('element') ? 'chain' : 'table'];
      this.#needReset = true;
      return this.#drift;
    }
  }

  async sync(req: SyncRequest): Promise<SyncOutcome> {
    const nft = await this.#client();
    const started = performance.now();
    const budget = new TurnBudget(this.#options.turnBudgetMs ?? 10);
    const updated = req.changes.updatedServices;
    const programmers = this.#programmersFor(req);
    const families = programmers.map((p) => p.family);
    // A family gained or lost (the Node's addresses changed, or a first sync): rewrite from scratch,
    // and drop the tables of the families this node does not have, so a single-stack IPv4 node has
    // no `ip6` table (not even one a previous run or upstream kube-proxy left behind).
    const reset = this.#needReset || !sameFamilies(families, this.#programmed);
    const dropped = this.#programmers.filter((p) => !families.includes(p.family));
    const repaired: string[] = [...this.#drift];
    const partial = !req.full && updated !== undefined && !req.changes.nodeChanged;
    let kind: 'partial' | 'resync' | 'rewrite' = 'rewrite';
    let plans: Planned[] | undefined;
    if (!reset) {
      // Partial: the changed Services. Resync: every Service, diffed (no flush, no rewrite).
      const tx = nft.newTransaction();
      const planned: (Planned | undefined)[] = [];
      for (const p of programmers)
        planned.push(partial ? p.planPartial(tx, req.state, updated) : await p.planResync(tx, req.state, budget));
      if (planned.every((p): p is Planned => p !== undefined)) {
        kind = partial ? 'partial' : 'resync';
        // A resync whose canary is gone found the table deleted or flushed: rewrite it from scratch.
        if (await this.#run(nft, tx, { drift: kind === 'resync', families })) plans = planned;
        if (plans === undefined) repaired.push('table');
        else if (kind === 'resync' && !(await this.#elementsIntact(nft, programmers))) {
          // Someone deleted elements: commit what the resync applied, then rewrite it all.
          for (const plan of plans) await plan.commit();
          plans = undefined;
          repaired.push('element');
        }
      }
    }
    const rewriteReset = reset || (kind === 'resync' && repaired.includes('table'));
    if (plans === undefined) {
      if (kind === 'resync')
        this.#log.warn('the kpng tables drifted; rewriting them', { revision: req.revision, repaired });
      kind = 'rewrite';
      const tx = nft.newTransaction();
      plans = [];
      for (const p of programmers) plans.push(await p.planFull(tx, req.state, rewriteReset, budget));
      if (rewriteReset) for (const p of dropped) writeCleanup(tx, p.ref);
      await this.#run(nft, tx, { families });
    }
    for (const plan of plans) await plan.commit();
    this.#needReset = false;
    this.#drift = [];
    this.#lastState = req.state;
    this.#programmed = families;
    const operations = plans.reduce((sum, p) => sum + p.operations, 0);
    this.#log.info('synced nftables', {
      full: kind !== 'partial',
      reset: rewriteReset,
      mode: kind,
      revision: req.revision,
      services: req.state.services.length,
      changed: kind === 'partial' ? (updated?.size ?? 0) : req.state.services.length,
      families,
      operations,
      ms: Math.round(performance.now() - started),
      ...(budget.yields > 0 ? { yields: budget.yields } : {}),
    });
    await this.#cleanConntrack(req, kind !== 'partial', programmers);
    return repaired.length > 0 ? { repaired } : {};
  }

  async cleanup(): Promise<void> {
    // A backend made only to clean up (`--cleanup`, the compat binary's start) keeps no shell.
    const cleanupOnly = this.#nft === undefined;
    const nft = await this.#client();
    try {
      const tx = nft.newTransaction();
      // Both families, whatever is configured now: a previous run may have programmed the other.
      for (const family of ['IPv4', 'IPv6'] as const) {
        writeCleanup(tx, new FamilyProgrammer({ ...this.config, families: [family] }, family).ref);
      }
      await nft.run(tx);
      this.#needReset = true;
    } finally {
      if (cleanupOnly) await this.close();
    }
  }

  /** What the backend believes each family's table holds (after the last successful sync). */
  rulesets(): Map<IPFamily, FamilyRuleset> {
    const state = this.#lastState;
    if (state === undefined) return new Map();
    return new Map(
      this.#programmers.filter((p) => this.#programmed.includes(p.family)).map((p) => [p.family, p.ruleset(state)]),
    );
  }

  /** Ends the nft client's shell (when this backend created the client). */
  async close(): Promise<void> {
    if (this.#options.nft === undefined) await this.#nft?.close?.();
  }

  async #client(): Promise<Nft> {
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

  /** Whether every element we applied is still in the kernel (check mode: nothing is written). */
  async #elementsIntact(nft: Nft, programmers: readonly FamilyProgrammer[]): Promise<boolean> {
    const tx = nft.newTransaction();
    for (const p of programmers) p.planElementProbe(tx);
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

  /** The configured families' programmers that this sync programs (`req.families`, else all of them). */
  #programmersFor(req: SyncRequest): FamilyProgrammer[] {
    const wanted = req.families;
    return wanted === undefined ? this.#programmers : this.#programmers.filter((p) => wanted.includes(p.family));
  }

  /**
   * Runs one transaction. With `drift`, a not-found failure (the canary probe) resolves false
   * instead of failing the sync: nothing was applied, and the caller rewrites everything.
   */

  async #run(
    nft: Nft,
    tx: Transaction,
    options: { readonly drift?: boolean; readonly families?: readonly IPFamily[] } = {},
  ): Promise<boolean> {
    if (tx.size === 0) return true;
    try {
      await nft.run(tx);
      return true;
    } catch (e) {
      if (options.drift === true && isNotFound(e)) return false;
      this.#needReset = true;
      const failed = e instanceof NftError ? e.operation : undefined;
      const family: IPFamily | undefined =
        failed === undefined ? undefined : failed.object.family === 'ip6' ? 'IPv6' : 'IPv4';
      for (const f of family === undefined ? (options.families ?? this.families) : [family])
        this.#metrics.syncFailed(f);
      this.#log.error('nftables sync failed; the previous rules stay in place and the next sync is a full one', {
        error: e instanceof Error ? e.message : String(e),
        ...(e instanceof NftError && e.line !== undefined ? { line: e.line } : {}),
        ...(failed === undefined ? {} : { operation: `${failed.verb} ${describeObject(failed.object)}` }),
        operations: tx.size,
      });
      // A timeout: nft was killed, its transaction applied whole or not at all; #needReset makes the retry rewrite.
      throw new KpngError(
        isTimeout(e) ? ErrorCodes.WriteTimedOut : ErrorCodes.SyncFailed,
        `nft transaction failed: ${e instanceof Error ? e.message : String(e)}`,
        { cause: e },
      );
    }
  }

  async #cleanConntrack(req: SyncRequest, full: boolean, programmers: readonly FamilyProgrammer[]): Promise<void> {
    const cleaner = this.#conntrack;
    if (cleaner === undefined) return;
    const updated = req.changes.updatedServices;
    const services =
      full || updated === undefined
        ? req.state.services
        : [...updated].map((key) => findService(req.state.services, key)).filter((s) => s !== undefined);
    if (!services.some((svc) => svc.ports.some((p) => p.protocol === 'UDP'))) return;
    for (const programmer of programmers) {
      const started = performance.now();
      try {
        const deleted = await cleaner.clean({
          family: programmer.family,
          services,
          isNodePortAddress: programmer.nodePortAddressMatcher(req.state),
        });
        this.#metrics.conntrackCleaned(programmer.family, deleted, (performance.now() - started) / 1000);
      } catch (e) {
        // The rules are in place; a leftover flow only delays the switch to a new endpoint.
        this.#log.warn('stale conntrack cleanup failed', {
          family: programmer.family,
          error: e instanceof Error ? e.message : String(e),
        });
      }
    }
  }
}

function sameFamilies(a: readonly IPFamily[], b: readonly IPFamily[]): boolean {
  return a.length === b.length && a.every((f) => b.includes(f));
}
