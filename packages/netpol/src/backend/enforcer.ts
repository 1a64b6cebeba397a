/**
 * The NetworkPolicy enforcer: render the policy view to set elements, diff them against what the
 * last successful sync applied, and apply the difference as one atomic nft transaction. The first
 * sync, and the first after any failure, rewrites the table from scratch (the kernel's content is
 * then unknown); every other sync only adds and deletes elements, never rules.
 */
import { log as defaultLog, type IPFamily, type Logger, type PolicyState } from '@kpng/core';
import { createNftClient, type Element, type Nft } from '@kpng/nftables';
import { TABLE } from '../render/names.js';
import { PodElements } from '../render/pod-elements.js';
import { skeleton } from '../render/skeleton.js';

export interface NetpolEnforcerOptions {
  /** The nft client (tests: a fake or one inside a lab namespace); default: the real `nft`. */
  readonly nft?: Nft;
  /** Run nft in this network namespace (with the default client). */
  readonly netns?: string;
  /** The families to enforce; default both. */
  readonly families?: readonly IPFamily[];
  readonly log?: Logger;
}

/** What one sync wrote. */
export interface EnforcerSyncResult {
  readonly full: boolean;
  readonly added: number;
  readonly deleted: number;
}

function element(set: string, key: readonly string[]): Element {
  return { kind: 'element', family: TABLE.family, table: TABLE.name, set, key };
}

export class NetpolEnforcer {
  readonly families: readonly IPFamily[];
  readonly #options: NetpolEnforcerOptions;
  readonly #log: Logger;
  #nft: Nft | undefined;
  /** What the last successful sync left in the kernel, per pod. */
  readonly #elements: PodElements;
  /** The kernel's table is unknown (first sync, or after a failure): rewrite it. */
  #rewrite = true;

  constructor(options: NetpolEnforcerOptions = {}) {
    this.#options = options;
    this.families = options.families ?? ['IPv4', 'IPv6'];
    this.#log = options.log ?? defaultLog;
    this.#nft = options.nft;
    this.#elements = new PodElements(this.families);
  }

  /** The nft client this enforcer writes with (created on first use). */
  async client(): Promise<Nft> {
    this.#nft ??= await createNftClient({
      ...(this.#options.netns === undefined ? {} : { netns: this.#options.netns }),
    });
    return this.#nft;
  }

  /**
   * Programs the kernel to enforce `state`: only the pods whose policy object changed since the
   * last sync are rendered again. On failure nothing changed and the next sync rewrites the table.
   */
  async sync(state: PolicyState, options: { readonly full?: boolean } = {}): Promise<EnforcerSyncResult> {
    const nft = await this.client();
    const full = options.full === true || this.#rewrite;
    if (full) this.#elements.reset();
    const update = this.#elements.update(state);
    const tx = nft.newTransaction();
    if (full) {
      const table = { kind: 'table', family: TABLE.family, name: TABLE.name } as const;
      tx.add(table);
      tx.delete(table);
      for (const object of skeleton(this.families)) tx.add(object);
    }
    // Deletions first: an interval set refuses an element overlapping one still present.
    for (const { set, key } of update.delta.delete) tx.delete(element(set, key));
    for (const { set, key } of update.delta.add) tx.add(element(set, key));
    const result = { full, added: update.delta.add.length, deleted: update.delta.delete.length };
    if (tx.size === 0) return result;
    this.#rewrite = true;
    await nft.run(tx);
    update.commit();
    this.#rewrite = false;
    this.#log.info('netpol sync', { ...result, pods: state.pods.size, elements: this.#elements.size });
    return result;
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
