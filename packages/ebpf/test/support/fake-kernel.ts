import { MAP_NAMES, SIZES, type MapName } from '../../src/maps/layout.js';
import type { LbKernel, MapIO, ScanCursor, ScanSlice } from '../../src/backend/kernel.js';

/**
 * An in-memory map with the kernel's contract for what the backend uses (sizes checked, a delete
 * of an absent key is fine), counting calls, and refusing writes on demand: the backend's tests
 * without the kernel. The kernel suites run the real maps.
 */
export class FakeMap implements MapIO {
  readonly data = new Map<string, Buffer>();
  /** Elements written by update, and deleted, since creation. */
  updates = 0;
  deletes = 0;
  /** Throw on the next write call (then clear). */
  failNext: Error | undefined;

  constructor(
    readonly name: MapName,
    /** Every write call, `map op`, in order (shared by a kernel's maps). */
    readonly journal: string[] = [],
    readonly maxEntries = 1 << 20,
  ) {}

  update(entries: readonly (readonly [Buffer, Buffer])[]): void {
    this.#fail();
    this.journal.push(`${this.name} update`);
    for (const [key, value] of entries) {
      if (key.length !== SIZES[this.name].key || value.length !== SIZES[this.name].value)
        throw new Error(`${this.name}: wrong key or value size`);
      const hex = key.toString('hex');
      if (!this.data.has(hex) && this.data.size >= this.maxEntries) throw new Error(`update ${this.name}: E2BIG`);
      this.data.set(hex, Buffer.from(value));
      this.updates++;
    }
  }

  delete(keys: readonly Buffer[]): void {
    this.#fail();
    this.journal.push(`${this.name} delete`);
    for (const key of keys) if (this.data.delete(key.toString('hex'))) this.deletes++;
  }

  /** A single lookup (what `explain` does). */
  get(key: Buffer): Buffer | undefined {
    const value = this.data.get(key.toString('hex'));
    return value === undefined ? undefined : Buffer.from(value);
  }

  async dump(): Promise<Map<string, string>> {
    return new Map([...this.data].map(([k, v]) => [k, v.toString('hex')]));
  }

  /** Scans calls made, for tests of the drift check's slices. */
  scans = 0;

  /** In insertion order; the cursor is an offset (a write between calls may shift it, as a kernel's may skip). */
  async scan(cursor: ScanCursor | undefined, limit: number): Promise<ScanSlice> {
    this.scans++;
    const from = typeof cursor === 'number' ? cursor : 0;
    const all = [...this.data];
    const entries = all.slice(from, from + limit).map(([k, v]): [string, string] => [k, v.toString('hex')]);
    const end = from + entries.length;
    return { entries, next: end < all.length ? end : undefined };
  }

  #fail(): void {
    const error = this.failNext;
    this.failNext = undefined;
    if (error !== undefined) throw error;
  }
}

export class FakeKernel implements LbKernel {
  readonly journal: string[] = [];
  maps: Record<MapName, FakeMap>;
  closed = false;
  /** Every resize's capacities, in order. */
  readonly resizes: Record<MapName, number>[] = [];
  /** Refuse the next resize after populating (then clear), as a refused link switch would. */
  failNextResize: Error | undefined;

  constructor(capacity: Partial<Record<MapName, number>> = {}) {
    this.maps = this.#create({ services4: 1 << 20, services6: 1 << 20, endpoints: 1 << 20, ...capacity });
  }

  get capacity(): Record<MapName, number> {
    return {
      services4: this.maps.services4.maxEntries,
      services6: this.maps.services6.maxEntries,
      endpoints: this.maps.endpoints.maxEntries,
    };
  }

  async resize(
    capacity: Readonly<Record<MapName, number>>,
    populate: (maps: Readonly<Record<MapName, FakeMap>>) => Promise<void>,
  ): Promise<void> {
    this.journal.push('resize');
    const maps = this.#create(capacity);
    await populate(maps);
    const error = this.failNextResize;
    this.failNextResize = undefined;
    if (error !== undefined) throw error;
    this.resizes.push({ ...capacity });
    this.maps = maps;
  }

  #create(capacity: Readonly<Record<MapName, number>>): Record<MapName, FakeMap> {
    const map = (name: MapName) => new FakeMap(name, this.journal, capacity[name]);
    return { services4: map('services4'), services6: map('services6'), endpoints: map('endpoints') };
  }

  close(): void {
    this.closed = true;
  }

  /** Elements written and deleted over every map. */
  writes(): number {
    return MAP_NAMES.reduce((n, m) => n + this.maps[m].updates + this.maps[m].deletes, 0);
  }
}
