/**
 * The NetworkPolicy enforcer: render the policy view's changed pods and peer groups, diff them
 * against what the last successful sync applied, and apply the difference as one atomic nft
 * transaction. The first sync, and the first after any failure, rewrites the table from scratch
 * (the kernel's content is then unknown); every other sync adds and deletes elements (a peer's
 * change: its groups' elements; a pod's: its verdict map elements), plus, when a pod needs an
 * allow list no other pod has, that list's new chain (existing rules are never rewritten).
 */
import { log as defaultLog, type IPFamily, type Logger, type PolicyState } from '@kpng/core';
import { createNftClient, type Nft } from '@kpng/nftables';
import { TABLE } from '../render/names.js';
import { skeleton } from '../render/skeleton.js';
import { PolicyTable } from '../render/table.js';

export interface NetpolEnforcerOptions {
  /** The nft client (tests: a fake or one inside a lab namespace); default: the real `nft`. */
  readonly nft?: Nft;
  /** Run nft in this network namespace (with the default client). */
  readonly netns?: string;
  /** The families to enforce; default both. */
  readonly families?: readonly IPFamily[];
  readonly log?: Logger;
}

/** What one sync wrote: whether it rewrote the table, and the objects it added and deleted. */
export interface EnforcerSyncResult {
  readonly full: boolean;
  readonly added: number;
  readonly deleted: number;
}

/** The stages of one sync, in milliseconds. */
export interface SyncTimings {
  /** From the view's state to the transaction's operations (diff against the kernel's content). */
  readonly renderMs: number;
  /**
   * The nft transaction (0 when there was nothing to write): its text written (a new group's
   * elements are made then, `Transaction.addEach`) and nft's run.
   */
  readonly writeMs: number;
}

export class NetpolEnforcer {
  readonly families: readonly IPFamily[];
  readonly #options: NetpolEnforcerOptions;
  readonly #log: Logger;
  #nft: Nft | undefined;
  /** What the last successful sync left in the kernel. */
  readonly #table: PolicyTable;
  /** The kernel's table is unknown (first sync, or after a failure): rewrite it. */
  #rewrite = true;
  #timings: SyncTimings = { renderMs: 0, writeMs: 0 };

  constructor(options: NetpolEnforcerOptions = {}) {
    this.#options = options;
    this.families = options.families ?? ['IPv4', 'IPv6'];
    this.#log = options.log ?? defaultLog;
    this.#nft = options.nft;
    this.#table = new PolicyTable(this.families);
  }

  /** The nft client this enforcer writes with (created on first use). */
  async client(): Promise<Nft> {
    // Transactions through one long-lived `nft -i`: no process start per sync (see @kpng/nftables).
    this.#nft ??= await createNftClient({
      interactive: true,
      ...(this.#options.netns === undefined ? {} : { netns: this.#options.netns }),
    });
    return this.#nft;
  }

  /**
   * Programs the kernel to enforce `state`: only the pods whose policy object changed since the
   * last sync, and the groups whose object changed, are rendered again. On failure nothing
   * changed and the next sync rewrites the table.
   */
  async sync(state: PolicyState, options: { readonly full?: boolean } = {}): Promise<EnforcerSyncResult> {
    const nft = await this.client();
    const started = performance.now();
    const full = options.full === true || this.#rewrite;
    if (full) this.#table.reset();
    const update = this.#table.update(state);
    const tx = nft.newTransaction();
    if (full) {
      const table = { kind: 'table', family: TABLE.family, name: TABLE.name } as const;
      tx.add(table);
      tx.delete(table);
      for (const object of skeleton(this.families)) tx.add(object);
    }
    let added = 0;
    let deleted = 0;
    for (const operation of update.operations) {
      if ('count' in operation) {
        tx.addEach(operation.count, operation.objects);
        added += operation.count;
        continue;
      }
      if (operation.verb === 'add') added++;
      else deleted++;
      tx[operation.verb](operation.object);
    }
    const result = { full, added, deleted };
    const rendered = performance.now();
    this.#timings = { renderMs: rendered - started, writeMs: 0 };
    if (tx.size === 0) return result;
    this.#rewrite = true;
    await nft.run(tx);
    this.#timings = { renderMs: rendered - started, writeMs: performance.now() - rendered };
    update.commit();
    this.#rewrite = false;
    this.#log.info('netpol sync', { ...result, ...this.#table.size });
    return result;
  }

  /** Where the last sync's time went: rendering the operations, then nft's transaction (bench). */
  get lastSyncTimings(): SyncTimings {
    return this.#timings;
  }

  /** Removes the table. */
  async cleanup(): Promise<void> {
    const nft = await this.client();
    const tx = nft.newTransaction();
    tx.destroy({ kind: 'table', family: TABLE.family, name: TABLE.name });
    await nft.run(tx);
    this.#rewrite = true;
  }

  async close(): Promise<void> {
    await this.#nft?.close?.();
  }
}
