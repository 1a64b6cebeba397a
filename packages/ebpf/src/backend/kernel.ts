import type { TurnBudget } from '@kpng/kit';
import type { MapName } from '../maps/layout.js';

/** One map as the backend uses it: `BpfMap` in the kernel, `FakeMap` in tests. */
export interface MapIO {
  update(entries: readonly (readonly [Buffer, Buffer])[]): void;
  delete(keys: readonly Buffer[]): void;
  /**
   * Every (key, value), both as hex (one string each: a Buffer per element costs several times more,
   * tens of MB at s10k: docs/PERFORMANCE.md); a big map is read in batches, the event loop given a
   * turn whenever `budget` is spent.
   */
  dump(budget: TurnBudget): Promise<Map<string, string>>;
  /**
   * `limit` elements or about (the kernel reads whole batches) from `cursor` (undefined: the map's start), and where to go on
   * (undefined: the end was reached). The drift check reads a map this way across several calls.
   * With a `budget`, the event loop gets a turn between batches whenever it is spent.
   */
  scan(cursor: ScanCursor | undefined, limit: number, budget?: TurnBudget): Promise<ScanSlice>;
}

/** Where a scan stopped: the kernel's batch position (or last key), or a fake's offset. */
export type ScanCursor = Buffer | number;

export interface ScanSlice {
  /** (key, value) as hex. */
  readonly entries: readonly (readonly [string, string])[];
  readonly next: ScanCursor | undefined;
}

/** The kernel seam: the loaded and attached socket load balancer (`SockLb`), or a fake. */
export interface LbKernel {
  /** The maps the programs use now (a resize replaces them). */
  readonly maps: Readonly<Record<MapName, MapIO>>;
  /** Each map's max_entries. */
  readonly capacity: Readonly<Record<MapName, number>>;
  /**
   * New, empty maps of `capacity` entries, filled by `populate` before any program reads them, then
   * swapped in for the programs at once; on failure the old maps stay in use, unchanged.
   */
  resize(
    capacity: Readonly<Record<MapName, number>>,
    populate: (maps: Readonly<Record<MapName, MapIO>>) => Promise<void>,
  ): Promise<void>;
  close(): void;
}
