import type { MapName } from '../maps/layout.js';

/** One map as the backend uses it: `BpfMap` in the kernel, `FakeMap` in tests. */
export interface MapIO {
  update(entries: readonly (readonly [Buffer, Buffer])[]): void;
  delete(keys: readonly Buffer[]): void;
  /** Every (key as hex, value); a big map is read in batches, giving the event loop turns. */
  dump(): Promise<Map<string, Buffer>>;
}

/** The kernel seam: the loaded and attached socket load balancer (`SockLb`), or a fake. */
export interface LbKernel {
  readonly maps: Readonly<Record<MapName, MapIO>>;
  close(): void;
}
