/**
 * The NetworkPolicy enforcer: render the policy view to set elements, diff them against what the
 * last successful sync applied, and apply the difference as one atomic nft transaction. The first
 * sync, and the first after any failure, rewrites the table from scratch (the kernel's content is
 * then unknown); every other sync only adds and deletes elements, never rules.
 */
import { log as defaultLog, type IPFamily, type Logger, type PolicyState } from '@kpng/core';
import { createNftClient, processExecer, type Element, type Nft, type Transaction } from '@kpng/nftables';
import { renderElements, type DesiredElements } from '../render/elements.js';
import { TABLE } from '../render/names.js';
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

function queueDiff(
  tx: Transaction,
  desired: DesiredElements,
  applied: DesiredElements,
): { added: number; deleted: number } {
  let added = 0;
  let deleted = 0;
  // Deletions first: an interval set refuses an element overlapping one still present.
  for (const [set, elements] of applied) {
    const wanted = desired.get(set);
    for (const [id, key] of elements) {
      if (wanted?.has(id) === true) continue;
      tx.delete(element(set, key));
      deleted++;
    }
  }
  for (const [set, elements] of desired) {
    const had = applied.get(set);
    for (const [id, key] of elements) {
      if (had?.has(id) === true) continue;
      tx.add(element(set, key));
      added++;
    }
  }
  return { added, deleted };
}

export class NetpolEnforcer {
  readonly families: readonly IPFamily[];
  readonly #options: NetpolEnforcerOptions;
  readonly #log: Logger;
  #nft: Nft | undefined;
  /** What the last successful sync left in the kernel; undefined when unknown (rewrite next). */
  #applied: DesiredElements | undefined;

  constructor(options: NetpolEnforcerOptions = {}) {
    this.#options = options;
    this.families = options.families ?? ['IPv4', 'IPv6'];
    this.#log = options.log ?? defaultLog;
    this.#nft = options.nft;
  }

  async #client(): Promise<Nft> {
    this.#nft ??= await createNftClient({
      execer: processExecer,
      ...(this.#options.netns === undefined ? {} : { netns: this.#options.netns }),
    });
    return this.#nft;
  }

  /** Programs the kernel to enforce `state`; on failure nothing changed and the next sync rewrites. */
  async sync(state: PolicyState, options: { readonly full?: boolean } = {}): Promise<EnforcerSyncResult> {
    const nft = await this.#client();
    const desired = renderElements(state, this.families);
    const tx = nft.newTransaction();
    const full = options.full === true || this.#applied === undefined;
    let counts: { added: number; deleted: number };
    if (full) {
      const table = { kind: 'table', family: TABLE.family, name: TABLE.name } as const;
      tx.add(table);
      tx.delete(table);
      for (const object of skeleton(this.families)) tx.add(object);
      counts = queueDiff(tx, desired, new Map());
    } else {
      counts = queueDiff(tx, desired, this.#applied as DesiredElements);
    }
    if (tx.size === 0) return { full, ...counts };
    this.#applied = undefined;
    await nft.run(tx);
    this.#applied = desired;
    this.#log.info('netpol sync', { full, pods: state.pods.size, ...counts });
    return { full, ...counts };
  }

  /** Removes the table. */
  async cleanup(): Promise<void> {
    const nft = await this.#client();
    const tx = nft.newTransaction();
    tx.destroy({ kind: 'table', family: TABLE.family, name: TABLE.name });
    await nft.run(tx);
    this.#applied = undefined;
  }

  async close(): Promise<void> {
    await this.#nft?.close?.();
  }
}
