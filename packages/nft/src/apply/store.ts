/**
 * What has been applied to one family's table, kept in memory so a sync never lists the kernel
 * (kubernetes#139513): elements and shared chains, each with the owners (Services, or the node)
 * that want it. Updating owners yields only the deltas to write; `commit` makes them "applied"
 * once the transaction succeeded.
 */
import { isDynamicChain } from '../render/names.js';
import { elementId, elementValueId, type ChainSpec, type ElementSpec } from '../render/types.js';

/** What one owner contributes. */
export interface Contribution {
  readonly elements: readonly ElementSpec[];
  readonly chains: readonly ChainSpec[];
}

/**
 * Almost every element has one owner; a Map is only made for the rest (a hairpin element of a
 * pod behind several Services, an address two Services claim).
 */
interface ElementEntry {
  owner: string | undefined;
  spec: ElementSpec | undefined;
  others: Map<string, ElementSpec> | undefined;
  /** What the kernel holds, if anything. */
  applied: ElementSpec | undefined;
}

function addOwner(entry: ElementEntry, owner: string, spec: ElementSpec): void {
  if (entry.owner === undefined || entry.owner === owner) {
    entry.owner = owner;
    entry.spec = spec;
  } else {
    (entry.others ??= new Map()).set(owner, spec);
  }
}

function removeOwner(entry: ElementEntry, owner: string): void {
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

/** The element a contested key resolves to: the smallest owner's (deterministic). */
function effective(entry: ElementEntry): ElementSpec | undefined {
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
  return delta.addChains.length + delta.rewriteChains.length + delta.deleteChains.length + delta.deleteElements.length + delta.addElements.length;
}

export class FamilyStore {
  readonly #elements = new Map<string, ElementEntry>();
  readonly #chains = new Map<string, ChainEntry>();
  readonly #owned = new Map<string, Contribution>();
  #touchedElements = new Set<string>();
  #touchedChains = new Set<string>();

  /** Replaces an owner's contribution (undefined: the owner is gone). */
  set(owner: string, next: Contribution | undefined): void {
    const previous = this.#owned.get(owner);
    if (previous !== undefined) {
      for (const element of previous.elements) {
        const id = elementId(element);
        const entry = this.#elements.get(id);
        if (entry !== undefined) removeOwner(entry, owner);
        this.#touchedElements.add(id);
      }
      for (const chain of previous.chains) {
        this.#chains.get(chain.name)?.owners.delete(owner);
        this.#touchedChains.add(chain.name);
      }
    }
    if (next === undefined) {
      this.#owned.delete(owner);
      return;
    }
    this.#owned.set(owner, next);
    for (const element of next.elements) {
      const id = elementId(element);
      let entry = this.#elements.get(id);
      if (entry === undefined) this.#elements.set(id, (entry = { owner: undefined, spec: undefined, others: undefined, applied: undefined }));
      addOwner(entry, owner, element);
      this.#touchedElements.add(id);
    }
    for (const chain of next.chains) {
      let entry = this.#chains.get(chain.name);
      if (entry === undefined) this.#chains.set(chain.name, (entry = { owners: new Set(), spec: chain, applied: undefined }));
      entry.owners.add(owner);
      entry.spec = chain;
      this.#touchedChains.add(chain.name);
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
      else if (entry.owners.size > 0 && entry.applied !== undefined && !sameRules(entry.applied, entry.spec)) delta.rewriteChains.push(entry.spec);
      if (entry.owners.size === 0 && entry.applied !== undefined) delta.deleteChains.push(name);
    }
    for (const id of this.#touchedElements) {
      const entry = this.#elements.get(id);
      if (entry === undefined) continue;
      const wanted = effective(entry);
      const applied = entry.applied;
      if (applied !== undefined && (wanted === undefined || elementValueId(wanted) !== elementValueId(applied))) {
        delta.deleteElements.push(applied);
      }
      if (wanted !== undefined && (applied === undefined || elementValueId(wanted) !== elementValueId(applied))) {
        delta.addElements.push(wanted);
      }
    }
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
    for (const id of this.#touchedElements) {
      const entry = this.#elements.get(id);
      if (entry === undefined) continue;
      entry.applied = effective(entry);
      if (entry.applied === undefined) this.#elements.delete(id);
    }
    this.#touchedElements = new Set();
    this.#touchedChains = new Set();
  }

  /** Every chain and element the owners want (for full syncs and the tracer). */
  wanted(): { readonly chains: ChainSpec[]; readonly elements: ElementSpec[] } {
    const chains = [...this.#chains.values()].filter((e) => e.owners.size > 0).map((e) => e.spec);
    const elements: ElementSpec[] = [];
    for (const entry of this.#elements.values()) {
      const element = effective(entry);
      if (element !== undefined) elements.push(element);
    }
    return { chains, elements };
  }

  /** Names of chains the kernel holds according to this store. */
  appliedChains(): string[] {
    return [...this.#chains.entries()].filter(([, e]) => e.applied !== undefined).map(([name]) => name);
  }

  /** Marks everything wanted as applied and forgets the rest (after a full rewrite). */
  commitAll(): void {
    for (const name of [...this.#chains.keys()]) this.#touchedChains.add(name);
    for (const id of [...this.#elements.keys()]) this.#touchedElements.add(id);
    this.commit();
  }

  get elementCount(): number {
    return this.#elements.size;
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
