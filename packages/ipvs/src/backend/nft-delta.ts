import type { Element, NftObject, Transaction, TurnBudget } from '@kpng/nft/nftables';

/**
 * What the backend last wrote to one family's nftables table: the structure (table, sets, chains,
 * rules) and the elements. A partial sync whose structure is unchanged writes only element
 * additions and deletions; anything else replaces the table whole, atomically.
 */
export class NftTableState {
  #structure: string | undefined;
  #objects: readonly NftObject[] = [];
  #elements = new Map<string, Element>();

  /**
   * Queues what turns the applied table into `objects`; returns the number of queued operations.
   * Gives the event loop a turn whenever `budget` is spent (an s10k table holds 100,000 elements).
   */
  async queue(tx: Transaction, objects: readonly NftObject[], full: boolean, budget: TurnBudget): Promise<number> {
    const structure = JSON.stringify(objects.filter((o) => o.kind !== 'element'));
    const elements = new Map<string, Element>();
    for (const object of objects) {
      if (object.kind === 'element') elements.set(elementId(object), object);
      if (budget.due()) await budget.yield();
    }
    let queued = 0;
    if (full || structure !== this.#structure) {
      const [table] = objects;
      if (table !== undefined) {
        tx.add(table);
        tx.delete(table);
      }
      for (const object of objects) {
        tx.add(object);
        if (budget.due()) await budget.yield();
      }
      queued = objects.length + 2;
    } else {
      for (const [id, element] of this.#elements) {
        if (!elements.has(id)) (tx.delete(element), queued++);
        if (budget.due()) await budget.yield();
      }
      for (const [id, element] of elements) {
        if (!this.#elements.has(id)) (tx.add(element), queued++);
        if (budget.due()) await budget.yield();
      }
    }
    this.#structure = structure;
    this.#objects = objects.filter((o) => o.kind !== 'element');
    this.#elements = elements;
    return queued;
  }

  /**
   * The drift probe, for a check-mode transaction (nothing is committed): one element of each
   * non-interval set that holds any is deleted (fails when the table or the set was deleted, or
   * the set flushed), the other sets and every chain flushed (fail when deleted). Interval sets are
   * only probed for existence: their elements may be merged. Queues nothing before a first write.
   */
  probe(tx: Transaction): void {
    if (this.#structure === undefined) return;
    const first = new Map<string, Element>();
    for (const element of this.#elements.values())
      if (element.set !== undefined && !first.has(element.set)) first.set(element.set, element);
    for (const object of this.#objects) {
      if (object.kind === 'chain') tx.flush(object);
      if (object.kind !== 'set') continue;
      const element = object.flags?.includes('interval') ? undefined : first.get(object.name);
      if (element === undefined) tx.flush(object);
      else tx.delete(element);
    }
  }

  /** The table object last written; undefined before a first write. */
  table(): NftObject | undefined {
    return this.#structure === undefined ? undefined : this.#objects.find((o) => o.kind === 'table');
  }

  /** After a failed write: the next sync replaces the table. */
  forget(): void {
    this.#structure = undefined;
    this.#objects = [];
    this.#elements = new Map();
  }
}

function elementId(element: Element): string {
  return `${element.set ?? element.map ?? ''} ${element.key.join(' . ')}`;
}
