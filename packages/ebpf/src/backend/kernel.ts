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
  /**
   * Ends the connected UDP sockets the socket load balancer sent from a Service address to an
   * endpoint of `pairs` (40-byte keys: Service address and port, endpoint address and port, as the
   * maps hold them; a sync removed them), where the kernel can (`bpf_sock_destroy`, 6.5), else
   * counts them. Undefined: no walker (not attached, or no BPF iterators in this kernel).
   */
  staleUdp?(pairs: readonly Buffer[]): StaleUdpSweep | undefined;
  close(): void;
}

/** One stale UDP sweep: sockets found balanced to a removed pair, destroyed, refused by the kernel. */
export interface StaleUdpSweep {
  readonly found: number;
  readonly destroyed: number;
  readonly failed: number;
  /** false: this kernel lacks bpf_sock_destroy; the sockets found were left as they are. */
  readonly destroys: boolean;
  /** Network namespaces walked (those of the cgroup's processes), and those left over the bound. */
  readonly namespaces: number;
  readonly skippedNamespaces: number;
}
