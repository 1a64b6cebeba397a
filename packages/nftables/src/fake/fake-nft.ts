import { dumpObjects, sortForDump } from '../canonical.js';
import { NftError } from '../errors.js';
import { DEFAULT_RENDER_CONTEXT } from '../objects/codec.js';
import { renderObject } from '../objects/index.js';
import type { Element, Family, NftObject, Rule } from '../objects/types.js';
import type { Nft } from '../nft.js';
import type { Operation } from '../operation.js';
import { parseDump } from '../parse-dump.js';
import { Transaction } from '../transaction.js';
import { applyOperation } from './apply.js';
import { ERRNO_TEXT, Rejection } from './rejection.js';
import { cloneState, elementKey, tableKey, type FakeState, type FakeTable } from './state.js';

type Container = { readonly set: string } | { readonly map: string };

/**
 * An in-memory nftables that enforces the kernel's rules: each transaction is applied to a copy
 * and committed only if every operation succeeds; existence rules per verb; jump/goto targets,
 * `@set`/`@map` and named counters must exist; referenced objects cannot be deleted. Errors are
 * the same `NftError`s, with nft-shaped stderr, as the real client raises.
 *
 * Not modelled: data types (keys are compared as text, so `2001:db8::1` and `2001:db8:0::1` are
 * different elements here), rule syntax, and anything the kernel does with packets.
 */
export class FakeNft implements Nft {
  #state: FakeState = new Map();
  /** The last transaction that ran successfully, to assert that a sync wrote only a delta. */
  lastTransaction: Transaction | undefined;

  newTransaction(): Transaction {
    return new Transaction();
  }

  async run(tx: Transaction): Promise<void> {
    this.#state = this.#apply(tx);
    this.lastTransaction = tx;
  }

  async check(tx: Transaction): Promise<void> {
    this.#apply(tx);
  }

  async listTable(family: Family, table: string): Promise<readonly NftObject[]> {
    return this.objects(family, table, { handles: true });
  }

  async listElements(family: Family, table: string, container: Container): Promise<readonly Element[]> {
    const found = this.#table(family, table)?.sets.get('set' in container ? container.set : container.map);
    if (found === undefined || found.object.kind !== ('set' in container ? 'set' : 'map')) {
      throw NftError.fromNft(`Error: ${ERRNO_TEXT['not-found']}\n`);
    }
    return [...found.elements.values()];
  }

  /** Every object, in dump order, optionally limited to one table. Rules have no handles unless asked. */
  objects(family?: Family, table?: string, options: { readonly handles?: boolean } = {}): NftObject[] {
    const tables =
      family !== undefined && table !== undefined
        ? [this.#table(family, table) ?? missingTable(family, table)]
        : [...this.#state.values()];
    const objects: NftObject[] = [];
    for (const fakeTable of tables) {
      objects.push(fakeTable.table);
      for (const { chain, rules } of fakeTable.chains.values()) {
        objects.push(chain, ...(options.handles === true ? rules : rules.map(({ handle: _h, ...rule }) => rule)));
      }
      for (const { object, elements } of fakeTable.sets.values()) objects.push(object, ...elements.values());
      objects.push(...fakeTable.counters.values());
    }
    return sortForDump(objects);
  }

  /** The rules of one chain, in order, with the handles the fake assigned. */
  rules(family: Family, table: string, chain: string): readonly Rule[] {
    return this.#table(family, table)?.chains.get(chain)?.rules ?? [];
  }

  /** The elements of one set or map, in insertion order. */
  elements(family: Family, table: string, container: string): readonly Element[] {
    return [...(this.#table(family, table)?.sets.get(container)?.elements.values() ?? [])];
  }

  findElement(family: Family, table: string, container: string, key: readonly string[]): Element | undefined {
    return this.#table(family, table)?.sets.get(container)?.elements.get(elementKey({ key }));
  }

  /** Deterministic `add …` lines of the whole state, for golden files. */
  dump(): string {
    return dumpObjects(this.objects());
  }

  /** Loads a dump (as one transaction, so it must be consistent) on top of the current state. */
  parseDump(text: string): void {
    const tx = new Transaction();
    for (const object of parseDump(text)) tx.add(object);
    this.#state = this.#apply(tx);
  }

  #table(family: Family, table: string): FakeTable | undefined {
    return this.#state.get(tableKey(family, table));
  }

  #apply(tx: Transaction): FakeState {
    if (tx.error !== undefined) throw tx.error;
    const next = cloneState(this.#state);
    tx.operations.forEach((operation, index) => {
      try {
        applyOperation(next, operation);
      } catch (error) {
        if (!(error instanceof Rejection)) throw error;
        throw rejectionError(error, index, operation, tx.operations);
      }
    });
    return next;
  }
}

/** The error nft would print for the operation on line `index + 1`, plus the fake's reason. */
function rejectionError(
  rejection: Rejection,
  index: number,
  operation: Operation,
  operations: readonly Operation[],
): NftError {
  const line = renderObject(operation.object, operation.verb, DEFAULT_RENDER_CONTEXT);
  const stderr =
    `/dev/stdin:${index + 1}:1-${line.length}: Error: Could not process rule: ${ERRNO_TEXT[rejection.kind]} (${rejection.message})\n` +
    `${line}\n${'^'.repeat(line.length)}\n`;
  return NftError.fromNft(
    stderr,
    operations.map((_, i) => i),
    operations,
  );
}

function missingTable(family: Family, table: string): never {
  throw NftError.fromNft(`Error: ${ERRNO_TEXT['not-found']} (no table ${family} ${table})\n`);
}
