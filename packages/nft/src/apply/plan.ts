/**
 * Writes a sync into a transaction. Partial: new chains, rewritten chains, element deletes, element
 * adds, unused chains (referrers first). Full: re-declare the skeleton, flush what we own (never the
 * kernel-written affinity set), sweep chains nobody wants, rewrite everything. Reset (first sync of
 * an instance, or after a failure, when we cannot know what the kernel holds): the same from an
 * empty table, dropped and recreated in the same atomic transaction.
 */
import type { Transaction } from '@kpng/nftables';
import type { TurnBudget } from '@kpng/kit';
import type { ChainSpec, ElementSpec, EndpointListSpec, SetSpec } from '../render/types.js';
import {
  chainObject,
  chainRef,
  elementObject,
  listElements,
  ruleObjects,
  setObject,
  tableObject,
  type TableRef,
} from './objects.js';
import type { Delta } from './store.js';

export function writePartial(tx: Transaction, ref: TableRef, delta: Delta): void {
  for (const chain of delta.addChains) {
    tx.add(chainObject(ref, chain));
  }
  for (const chain of delta.addChains) for (const rule of ruleObjects(ref, chain)) tx.add(rule);
  for (const chain of delta.rewriteChains) {
    tx.flush(chainRef(ref, chain.name));
    for (const rule of ruleObjects(ref, chain)) tx.add(rule);
  }
  for (const element of delta.deleteElements) tx.delete(elementObject(ref, element));
  for (const element of delta.addElements) tx.add(elementObject(ref, element));
  // Emptied first: kernels before 5.x, and the fake, refuse to delete a chain that has rules.
  for (const name of delta.deleteChains) tx.flush(chainRef(ref, name));
  for (const name of delta.deleteChains) tx.delete(chainRef(ref, name));
}

export interface FullWrite {
  readonly sets: readonly SetSpec[];
  /** Skeleton and dynamic chains, skeleton first. */
  readonly chains: readonly ChainSpec[];
  /** Grouped by container (nft takes a line of elements of one set at once). */
  readonly elements: readonly ElementSpec[];
  /** Endpoint lists, grouped by map. */
  readonly lists?: readonly EndpointListSpec[];
  /** Dynamic chains the kernel holds that nobody wants any more (ignored on reset). */
  readonly staleChains: readonly string[];
  readonly reset: boolean;
}

/** Writes a full sync; `budget` gives the event loop turns while the (many) elements are written. */
export async function writeFull(tx: Transaction, ref: TableRef, full: FullWrite, budget?: TurnBudget): Promise<void> {
  const table = tableObject(ref);
  tx.add(table);
  if (full.reset) {
    tx.delete(table);
    tx.add(table);
  }
  for (const set of full.sets) tx.add(setObject(ref, set));
  for (const chain of full.chains) tx.add(chainObject(ref, chain));
  if (!full.reset) {
    for (const chain of full.chains) tx.flush(chainRef(ref, chain.name));
    for (const name of full.staleChains) tx.flush(chainRef(ref, name));
    for (const set of full.sets) if (set.dynamic !== true) tx.flush(setObject(ref, set));
    for (const name of full.staleChains) tx.delete(chainRef(ref, name));
  }
  for (const chain of full.chains) {
    for (const rule of ruleObjects(ref, chain)) tx.add(rule);
    if (budget?.due()) await budget.yield();
  }
  // Most of a full sync (~100k elements at s10k): deferred, so their objects are made while the
  // transaction is streamed to nft, a chunk at a time, never all at once.
  const { elements } = full;
  tx.addEach(elements.length, function* () {
    for (const element of elements) yield elementObject(ref, element);
  });
  const lists = full.lists ?? [];
  let slots = 0;
  for (const list of lists) slots += list.endpoints.length;
  tx.addEach(slots, function* () {
    for (const list of lists) yield* listElements(ref, list);
  });
}

/** Removes the table and everything in it, if it exists. */
export function writeCleanup(tx: Transaction, ref: TableRef): void {
  tx.destroy(tableObject(ref));
}
