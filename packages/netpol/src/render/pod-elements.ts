/**
 * The elements in the kernel, counted per pod: a sync re-renders only the pods whose policy object
 * changed (the view hands out the same object for an unchanged pod), and turns the count changes
 * into element additions and deletions. Counting keeps an element two pods render (an IP reused
 * while the old pod is still listed) until neither does.
 */
import type { IPFamily, PodKey, PodPolicy, PolicyState } from '@kpng/core';
import { renderPod, type DesiredElements } from './elements.js';

interface Counted {
  readonly set: string;
  readonly key: readonly string[];
  readonly count: number;
}

/** Additions and deletions to apply, in that order of meaning (delete first). */
export interface ElementDelta {
  readonly add: readonly { readonly set: string; readonly key: readonly string[] }[];
  readonly delete: readonly { readonly set: string; readonly key: readonly string[] }[];
}

function flatten(elements: DesiredElements): { set: string; id: string; key: readonly string[] }[] {
  const out: { set: string; id: string; key: readonly string[] }[] = [];
  for (const [set, byId] of elements) for (const [id, key] of byId) out.push({ set, id: `${set} ${id}`, key });
  return out;
}

export class PodElements {
  readonly #families: readonly IPFamily[];
  /** What each pod rendered, and from which policy object. */
  #pods = new Map<PodKey, { readonly policy: PodPolicy; readonly ids: readonly string[] }>();
  #elements = new Map<string, Counted>();

  constructor(families: readonly IPFamily[]) {
    this.#families = families;
  }

  get size(): number {
    return this.#elements.size;
  }

  /** Every element, for a rewrite. */
  all(): { readonly set: string; readonly key: readonly string[] }[] {
    return [...this.#elements.values()].map(({ set, key }) => ({ set, key }));
  }

  /**
   * Moves to `state` and returns what changed. Not committed until `commit` (a failed apply is
   * followed by `reset`, after which everything is re-rendered).
   */
  update(state: PolicyState): { readonly delta: ElementDelta; commit(): void } {
    // Changes go to overlays (null: removed), so an update that is never committed costs nothing
    // and a small change never copies the whole table.
    const pods = new Map<PodKey, { readonly policy: PodPolicy; readonly ids: readonly string[] } | null>();
    const elements = new Map<string, Counted | null>();
    const podOf = (key: PodKey) => (pods.has(key) ? (pods.get(key) ?? undefined) : this.#pods.get(key));
    const elementOf = (id: string) => (elements.has(id) ? (elements.get(id) ?? undefined) : this.#elements.get(id));
    const change = (id: string, set: string, key: readonly string[], by: 1 | -1): void => {
      const count = (elementOf(id)?.count ?? 0) + by;
      elements.set(id, count <= 0 ? null : { set, key, count });
    };
    const drop = (podKey: PodKey): void => {
      const old = podOf(podKey);
      if (old === undefined) return;
      for (const id of old.ids) {
        const counted = elementOf(id) as Counted;
        change(id, counted.set, counted.key, -1);
      }
      pods.set(podKey, null);
    };
    for (const podKey of this.#pods.keys()) if (!state.pods.has(podKey)) drop(podKey);
    for (const [podKey, policy] of state.pods) {
      if (podOf(podKey)?.policy === policy) continue;
      drop(podKey);
      const rendered: DesiredElements = new Map();
      renderPod(rendered, policy, this.#families);
      const flat = flatten(rendered);
      for (const { set, id, key } of flat) change(id, set, key, 1);
      pods.set(podKey, { policy, ids: flat.map((e) => e.id) });
    }
    const add: { set: string; key: readonly string[] }[] = [];
    const del: { set: string; key: readonly string[] }[] = [];
    for (const [id, after] of elements) {
      const before = this.#elements.get(id);
      if (before !== undefined && after === null) del.push({ set: before.set, key: before.key });
      else if (before === undefined && after !== null) add.push({ set: after.set, key: after.key });
    }
    return {
      delta: { add, delete: del },
      commit: () => {
        for (const [key, value] of pods) {
          if (value === null) this.#pods.delete(key);
          else this.#pods.set(key, value);
        }
        for (const [id, value] of elements) {
          if (value === null) this.#elements.delete(id);
          else this.#elements.set(id, value);
        }
      },
    };
  }

  reset(): void {
    this.#pods = new Map();
    this.#elements = new Map();
  }
}
