import type { Element, NftObject, Transaction } from '@kpng/nft/nftables';

/**
 * What the backend last wrote to one family's nftables table: the structure (table, sets, chains,
 * rules) and the elements. A partial sync whose structure is unchanged writes only element
 * additions and deletions; anything else replaces the table whole, atomically.
 */
export class NftTableState {
  #structure: string | undefined;
  #elements = new Map<string, Element>();

  /** Queues what turns the applied table into `objects`; returns the number of queued operations. */
  queue(tx: Transaction, objects: readonly NftObject[], full: boolean): number {
    const structure = JSON.stringify(objects.filter((o) => o.kind !== 'element'));
    const elements = new Map(objects.flatMap((o) => (o.kind === 'element' ? [[elementId(o), o] as const] : [])));
    let queued = 0;
    if (full || structure !== this.#structure) {
      const [table] = objects;
      if (table !== undefined) {
        tx.add(table);
        tx.delete(table);
      }
      for (const object of objects) tx.add(object);
      queued = objects.length + 2;
    } else {
      for (const [id, element] of this.#elements) if (!elements.has(id)) (tx.delete(element), queued++);
      for (const [id, element] of elements) if (!this.#elements.has(id)) (tx.add(element), queued++);
    }
    this.#structure = structure;
    this.#elements = elements;
    return queued;
  }

  /** After a failed write: the next sync replaces the table. */
  forget(): void {
    this.#structure = undefined;
    this.#elements = new Map();
  }
}

function elementId(element: Element): string {
  return `${element.set ?? element.map ?? ''} ${element.key.join(' . ')}`;
}
