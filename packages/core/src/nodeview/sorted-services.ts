/**
 * Services kept sorted by key under point updates: a binary search finds the slot, and only an
 * addition or a removal moves elements (one `splice`), so a change to one Service never re-sorts
 * ten thousand. Keys compare by UTF-16 code units (`<`), which is locale-independent.
 */
import type { ServiceKey } from '../model/types.js';
import type { LocalService } from './types.js';

export class SortedServices {
  readonly #keys: ServiceKey[] = [];
  readonly #services: LocalService[] = [];

  get size(): number {
    return this.#keys.length;
  }

  get(key: ServiceKey): LocalService | undefined {
    const i = this.#indexOf(key);
    return this.#keys[i] === key ? this.#services[i] : undefined;
  }

  set(service: LocalService): void {
    const i = this.#indexOf(service.key);
    if (this.#keys[i] === service.key) {
      this.#services[i] = service;
    } else {
      this.#keys.splice(i, 0, service.key);
      this.#services.splice(i, 0, service);
    }
  }

  delete(key: ServiceKey): boolean {
    const i = this.#indexOf(key);
    if (this.#keys[i] !== key) return false;
    this.#keys.splice(i, 1);
    this.#services.splice(i, 1);
    return true;
  }

  /** Replaces the whole content with one sort, for full recomputations (no per-item splicing). */
  reset(services: Iterable<LocalService>): void {
    const sorted = [...services].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    this.#keys.length = 0;
    this.#services.length = 0;
    for (const svc of sorted) {
      this.#keys.push(svc.key);
      this.#services.push(svc);
    }
  }

  keys(): readonly ServiceKey[] {
    return this.#keys;
  }

  /** A copy: callers keep it while this collection moves on. */
  snapshot(): readonly LocalService[] {
    return this.#services.slice();
  }

  /** Lowest index whose key is >= `key`. */
  #indexOf(key: ServiceKey): number {
    let lo = 0;
    let hi = this.#keys.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.#keys[mid]! < key) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}
