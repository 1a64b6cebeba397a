/**
 * What has been applied to one family's table, kept in memory so a sync never lists the kernel
 * (kubernetes#139513): elements, endpoint lists and shared chains, each with the owners (Services,
 * or the node) that want it. Updating owners yields only the deltas to write; `commit` makes them
 * "applied" once the transaction succeeded.
 */
import { isDynamicChain } from '../render/names.js';
import { listElement, type ChainSpec, type ElementSpec, type EndpointListSpec } from '../render/types.js';
import { addOwner, effective, OwnedIndex, removeOwner, type OwnedEntry } from './owned-index.js';
import type { TurnBudget } from '@kpng/kit';

/** What one owner contributes. */
export interface Contribution {
  readonly elements: readonly ElementSpec[];
  /** Endpoint map elements, as lists (slot order). */
  readonly lists?: readonly EndpointListSpec[];
  readonly chains: readonly ChainSpec[];
}

interface ChainEntry {
  readonly owners: Set<string>;
  spec: ChainSpec;
  /** What the kernel holds, if anything. */
  applied: ChainSpec | undefined;
}

function sameRules(a: ChainSpec, b: ChainSpec): boolean {
  return a === b || (a.rules.length === b.rules.length && a.rules.every((rule, i) => rule === b.rules[i]));
}

export interface Delta {
  readonly addChains: ChainSpec[];
  /** Chains whose rules changed (a sticky port's lookups name its endpoints): flush and re-add. */
  readonly rewriteChains: ChainSpec[];
  readonly deleteChains: string[];
  readonly deleteElements: ElementSpec[];
  readonly addElements: ElementSpec[];
}

export function emptyDelta(): Delta {
  return { addChains: [], rewriteChains: [], deleteChains: [], deleteElements: [], addElements: [] };
}

export function deltaSize(delta: Delta): number {
  return (
    delta.addChains.length +
    delta.rewriteChains.length +
    delta.deleteChains.length +
    delta.deleteElements.length +
    delta.addElements.length
  );
}

/** Identity of an element within its container. */
function elementKey(element: ElementSpec): string {
  return element.key.length === 1 ? (element.key[0] as string) : element.key.join(' . ');
}

/** Identity of a list within its map: service address, port and first slot. */
function listKey(list: EndpointListSpec): string {
  return `${list.address} ${list.port} ${list.offset}`;
}

function sameParts(a: readonly string[] | undefined, b: readonly string[] | undefined): boolean {
  if (a === b) return true;
  if (a === undefined || b === undefined || a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Same value and comment: nothing to rewrite (the key is the same by construction). */
function sameContent(a: ElementSpec, b: ElementSpec): boolean {
  return a === b || (a.comment === b.comment && sameParts(a.value, b.value));
}

/** The element writes that turn list `applied` into `wanted` (same key): only the slots that differ. */
function listDelta(applied: EndpointListSpec | undefined, wanted: EndpointListSpec | undefined, delta: Delta): void {
  if (applied === wanted) return;
  const before = applied?.endpoints ?? [];
  const after = wanted?.endpoints ?? [];
  for (let i = 0; i < Math.max(before.length, after.length); i++) {
    const [old, now] = [before[i], after[i]];
    if (old !== undefined && now !== undefined && old.ip === now.ip && old.port === now.port) continue;
    if (old !== undefined && applied !== undefined) delta.deleteElements.push(listElement(applied, i));
    if (now !== undefined && wanted !== undefined) delta.addElements.push(listElement(wanted, i));
  }
}

export interface FamilyStoreOptions {
  /**
   * A store filled once for a full sync: no delta tracking (`delta()` stays empty) until
   * `commitAll()` records everything as applied; then it tracks as usual.
   */
  readonly bulk?: boolean;
}

export class FamilyStore {
  readonly #elements = new OwnedIndex<ElementSpec>(elementKey);
  readonly #lists = new OwnedIndex<EndpointListSpec>(listKey);
  readonly #chains = new Map<string, ChainEntry>();
  readonly #owned = new Map<string, Contribution>();
  #bulk: boolean;
  #touchedElements: ElementSpec[] = [];
  #touchedLists: EndpointListSpec[] = [];
  #touchedChains = new Set<string>();

  constructor(options: FamilyStoreOptions = {}) {
    this.#bulk = options.bulk === true;
  }

  /** Replaces an owner's contribution (undefined: the owner is gone). */
  set(owner: string, next: Contribution | undefined): void {
    const previous = this.#owned.get(owner);
    const track = !this.#bulk;
    if (previous !== undefined) {
      for (const element of previous.elements) {
        const entry = this.#elements.get(element);
        if (entry !== undefined) removeOwner(entry, owner);
        if (track) this.#touchedElements.push(element);
      }
      for (const list of previous.lists ?? []) {
        const entry = this.#lists.get(list);
        if (entry !== undefined) removeOwner(entry, owner);
        if (track) this.#touchedLists.push(list);
      }
      for (const chain of previous.chains) {
        this.#chains.get(chain.name)?.owners.delete(owner);
        if (track) this.#touchedChains.add(chain.name);
      }
    }
    if (next === undefined) {
      this.#owned.delete(owner);
      return;
    }
    this.#owned.set(owner, next);
    for (const element of next.elements) {
      addOwner(this.#elements.getOrCreate(element), owner, element);
      if (track) this.#touchedElements.push(element);
    }
    for (const list of next.lists ?? []) {
      addOwner(this.#lists.getOrCreate(list), owner, list);
      if (track) this.#touchedLists.push(list);
    }
    for (const chain of next.chains) {
      let entry = this.#chains.get(chain.name);
      if (entry === undefined)
        this.#chains.set(chain.name, (entry = { owners: new Set(), spec: chain, applied: undefined }));
      entry.owners.add(owner);
      entry.spec = chain;
      if (track) this.#touchedChains.add(chain.name);
    }
  }

  owners(): IterableIterator<string> {
    return this.#owned.keys();
  }

  /** The writes that make the kernel match the owners' wishes, for everything touched since the last call. */
  delta(): Delta {
    const delta = emptyDelta();
    for (const name of this.#touchedChains) {
      const entry = this.#chains.get(name);
      if (entry === undefined) continue;
      if (entry.owners.size > 0 && entry.applied === undefined) delta.addChains.push(entry.spec);
      else if (entry.owners.size > 0 && entry.applied !== undefined && !sameRules(entry.applied, entry.spec))
        delta.rewriteChains.push(entry.spec);
      if (entry.owners.size === 0 && entry.applied !== undefined) delta.deleteChains.push(name);
    }
    for (const entry of touched(this.#elements, this.#touchedElements)) {
      const wanted = effective(entry);
      const applied = entry.applied;
      const changed = wanted !== undefined && applied !== undefined && !sameContent(wanted, applied);
      if (applied !== undefined && (wanted === undefined || changed)) delta.deleteElements.push(applied);
      if (wanted !== undefined && (applied === undefined || changed)) delta.addElements.push(wanted);
    }
    for (const entry of touched(this.#lists, this.#touchedLists)) listDelta(entry.applied, effective(entry), delta);
    delta.deleteChains.sort(byReferrerFirst);
    return delta;
  }

  /** The touched objects are now as `delta()` said: record it and forget what nobody owns. */
  commit(): void {
    for (const name of this.#touchedChains) {
      const entry = this.#chains.get(name);
      if (entry === undefined) continue;
      if (entry.owners.size === 0) this.#chains.delete(name);
      else entry.applied = entry.spec;
    }
    for (const element of this.#touchedElements) this.#elements.settle(element);
    for (const list of this.#touchedLists) this.#lists.settle(list);
    this.#touchedElements = [];
    this.#touchedLists = [];
    this.#touchedChains = new Set();
  }

  /** Every chain and element the owners want (the tracer, `rulesets()`): lists as elements. */
  wanted(): { readonly chains: ChainSpec[]; readonly elements: ElementSpec[] } {
    const { chains, elements, lists } = this.wantedForWrite();
    for (const list of lists) for (let i = 0; i < list.endpoints.length; i++) elements.push(listElement(list, i));
    return { chains, elements };
  }

  /** What a full sync writes: elements grouped by container, endpoint lists grouped by map. */
  wantedForWrite(): {
    readonly chains: ChainSpec[];
    readonly elements: ElementSpec[];
    readonly lists: EndpointListSpec[];
  } {
    const chains = [...this.#chains.values()].filter((e) => e.owners.size > 0).map((e) => e.spec);
    return { chains, elements: [...this.#elements.wanted()], lists: [...this.#lists.wanted()] };
  }

  /** Names of chains the kernel holds according to this store. */
  appliedChains(): string[] {
    return [...this.#chains.entries()].filter(([, e]) => e.applied !== undefined).map(([name]) => name);
  }

  /** Marks everything wanted as applied and forgets the rest (after a full rewrite), in turns of `budget`. */
  async commitAll(budget?: TurnBudget): Promise<void> {
    for (const [name, entry] of this.#chains) {
      if (entry.owners.size === 0) this.#chains.delete(name);
      else entry.applied = entry.spec;
    }
    await this.#elements.settleAll(budget);
    await this.#lists.settleAll(budget);
    this.#bulk = false;
    this.#touchedElements = [];
    this.#touchedLists = [];
    this.#touchedChains = new Set();
  }

  /** Elements the store tracks (list slots counted one by one). */
  get elementCount(): number {
    let slots = 0;
    for (const list of this.#lists.wanted()) slots += list.endpoints.length;
    return this.#elements.size + slots;
  }
}

/** Each touched entry once (an object may be touched by several owners, or twice by one). */
function* touched<T extends { readonly container: string }>(
  index: OwnedIndex<T>,
  specs: readonly T[],
): Generator<OwnedEntry<T>> {
  const seen = new Set<OwnedEntry<T>>();
  for (const spec of specs) {
    const entry = index.get(spec);
    if (entry === undefined || seen.has(entry)) continue;
    seen.add(entry);
    yield entry;
  }
}

/** Entry chains refer to a sticky port's lookup chains, which refer to pick chains: delete in that order. */
function chainRank(name: string): number {
  if (/^(cluster|external|local)-/.test(name)) return 0;
  if (/^affinity-/.test(name)) return 1;
  if (/^pick-/.test(name)) return 2;
  return isDynamicChain(name) ? 3 : 4;
}

function byReferrerFirst(a: string, b: string): number {
  return chainRank(a) - chainRank(b) || (a < b ? -1 : a > b ? 1 : 0);
}
