import type { Element, NftObject, Transaction } from '@kpng/nftables';
import type { TurnBudget } from '@kpng/kit';
import type { DesiredVirtualServer } from '../render/desired.js';
import { contribute, type ElementCounts } from '../render/filter-elements.js';
import type { FilterTable } from '../render/filter-table.js';

/**
 * What the backend last wrote to one family's nftables table: the structure (table, sets, chains,
 * rules) and the elements. A partial sync whose structure is unchanged writes only element
 * additions and deletions; anything else replaces the table whole, atomically.
 */
export class NftTableState {
  #structure: string | undefined;
  #objects: readonly NftObject[] = [];
  #elements = new Map<string, Element>();
  #serviceIps = new Set<string>();
  #counts: ElementCounts | undefined;

  /**
   * Queues what turns the applied table into `objects`; returns the number of queued operations.
   * Gives the event loop a turn whenever `budget` is spent (an s10k table holds 100,000 elements).
   */
  async queue(tx: Transaction, table: FilterTable, full: boolean, budget: TurnBudget): Promise<number> {
    const { objects } = table;
    const structure = JSON.stringify(objects.filter((o) => o.kind !== 'element'));
    const elements = new Map<string, Element>();
    const serviceIps = new Set<string>();
    for (const object of objects) {
      if (object.kind === 'element') elements.set(elementId(object), object);
      if (object.kind === 'element' && object.set === 'service_ips' && object.key[0] !== undefined)
        serviceIps.add(object.key[0]);
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
    this.#serviceIps = serviceIps;
    this.#counts = table.counts;
    return queued;
  }

  /**
   * A partial sync's element delta without rebuilding the table: the contributions of `before` (the
   * changed virtual servers as last written) go, those of `after` (as now) come, and the service
   * addresses become `addresses`. Only elements no other virtual server holds are deleted. Returns
   * the number of queued operations, or undefined when no table was written (queue it whole then).
   */
  patch(
    tx: Transaction,
    before: Iterable<DesiredVirtualServer>,
    after: Iterable<DesiredVirtualServer>,
    addresses: readonly string[],
  ): number | undefined {
    const table = this.table();
    const counts = this.#counts;
    if (table === undefined || table.kind !== 'table' || counts === undefined) return undefined;
    const element = (set: string, key: string[]): Element => ({
      kind: 'element',
      family: table.family,
      table: table.name,
      set,
      key,
    });
    const gone = new Map<string, Element>();
    const come = new Map<string, Element>();
    for (const d of before)
      contribute(d, (set, key) => {
        if (!counts.remove(set, key)) return;
        const e = element(set, key);
        gone.set(elementId(e), e);
      });
    for (const d of after)
      contribute(d, (set, key) => {
        if (!counts.add(set, key)) return;
        const e = element(set, key);
        // Taken out and put back (moved between virtual servers): nothing to write.
        if (!gone.delete(elementId(e))) come.set(elementId(e), e);
      });
    const want = new Set(addresses);
    for (const ip of this.#serviceIps) if (!want.has(ip)) gone.set(`service_ips ${ip}`, element('service_ips', [ip]));
    for (const ip of want) if (!this.#serviceIps.has(ip)) come.set(`service_ips ${ip}`, element('service_ips', [ip]));
    for (const [id, e] of gone) (tx.delete(e), this.#elements.delete(id));
    for (const [id, e] of come) (tx.add(e), this.#elements.set(id, e));
    this.#serviceIps = want;
    return gone.size + come.size;
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
    this.#serviceIps = new Set();
    this.#counts = undefined;
  }
}

function elementId(element: Element): string {
  return `${element.set ?? element.map ?? ''} ${element.key.join(' . ')}`;
}
