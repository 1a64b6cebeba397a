/**
 * Objects keyed by container and key, each with the owners (Services, or the node) that want it
 * and what the kernel holds. Almost every object has one owner; a Map is only made for the rest (a
 * hairpin element of a pod behind several Services, an address two Services claim). A contested
 * key resolves to the smallest owner's object, whatever the order owners came in.
 */
import type { TurnBudget } from '@kpng/kit';

export interface OwnedEntry<T> {
  owner: string | undefined;
  spec: T | undefined;
  others: Map<string, T> | undefined;
  /** What the kernel holds, if anything. */
  applied: T | undefined;
}

export function addOwner<T>(entry: OwnedEntry<T>, owner: string, spec: T): void {
  if (entry.owner === undefined || entry.owner === owner) {
    entry.owner = owner;
    entry.spec = spec;
  } else {
    (entry.others ??= new Map()).set(owner, spec);
  }
}

export function removeOwner<T>(entry: OwnedEntry<T>, owner: string): void {
  if (entry.owner === owner) {
    entry.owner = undefined;
    entry.spec = undefined;
    const next = entry.others?.entries().next();
    if (next !== undefined && next.done !== true) {
      const [nextOwner, nextSpec] = next.value;
      entry.others?.delete(nextOwner);
      entry.owner = nextOwner;
      entry.spec = nextSpec;
    }
  } else {
    entry.others?.delete(owner);
  }
}

/** What the owners want for this key: the smallest owner's object. */
export function effective<T>(entry: OwnedEntry<T>): T | undefined {
  if (entry.others === undefined || entry.others.size === 0) return entry.spec;
  let best = entry.owner;
  let spec = entry.spec;
  for (const [owner, candidate] of entry.others) {
    if (best === undefined || owner < best) {
      best = owner;
      spec = candidate;
    }
  }
  return spec;
}

/** Entries by container, then key: iterating yields each container's entries together. */
export class OwnedIndex<T extends { readonly container: string }> {
  readonly #containers = new Map<string, Map<string, OwnedEntry<T>>>();
  readonly #keyOf: (spec: T) => string;

  constructor(keyOf: (spec: T) => string) {
    this.#keyOf = keyOf;
  }

  get(spec: T): OwnedEntry<T> | undefined {
    return this.#containers.get(spec.container)?.get(this.#keyOf(spec));
  }

  getOrCreate(spec: T): OwnedEntry<T> {
    let byKey = this.#containers.get(spec.container);
    if (byKey === undefined) this.#containers.set(spec.container, (byKey = new Map()));
    const key = this.#keyOf(spec);
    let entry = byKey.get(key);
    if (entry === undefined)
      byKey.set(key, (entry = { owner: undefined, spec: undefined, others: undefined, applied: undefined }));
    return entry;
  }

  /** Records what the kernel now holds for `spec`'s key (nothing: the entry goes). */
  settle(spec: T): void {
    const byKey = this.#containers.get(spec.container);
    const key = this.#keyOf(spec);
    const entry = byKey?.get(key);
    if (byKey === undefined || entry === undefined) return;
    entry.applied = effective(entry);
    if (entry.applied === undefined) byKey.delete(key);
  }

  /**
   * Records every entry as applied (after a full rewrite), giving the event loop a turn whenever
   * `budget` is spent: at s50k these are ~150k entries, a stall of its own at the end of a first sync.
   */
  async settleAll(budget?: TurnBudget): Promise<void> {
    for (const byKey of this.#containers.values()) {
      for (const [key, entry] of byKey) {
        entry.applied = effective(entry);
        if (entry.applied === undefined) byKey.delete(key);
        if (budget?.due()) await budget.yield();
      }
    }
  }

  /** What the owners want, container by container. */
  *wanted(): Generator<T> {
    for (const byKey of this.#containers.values()) {
      for (const entry of byKey.values()) {
        const spec = effective(entry);
        if (spec !== undefined) yield spec;
      }
    }
  }

  get size(): number {
    let count = 0;
    for (const byKey of this.#containers.values()) count += byKey.size;
    return count;
  }
}
