/**
 * The eBPF backend's own metrics. Core registers the sync loop's (latency, failures, drift
 * repairs); a backend adds only these.
 */
import { Counter, Gauge, type Registry } from 'prom-client';
import { metricsOn } from '@kpng/kit';
import type { MapName } from '../maps/layout.js';

export interface EbpfMetrics {
  /** Elements written (`op` update or delete) to a map by a successful sync. */
  written(map: MapName, op: 'update' | 'delete', elements: number): void;
  /** A map write the kernel refused (the sync fails, core retries with a full sync). */
  writeFailed(map: MapName): void;
  /** The map's element count after a sync. */
  entries(map: MapName, count: number): void;
  /** A Service part left out of the maps (an address the layout cannot hold, a frontend claimed twice). */
  renderProblem(): void;
  /** The map's max_entries (after setup and after each resize). */
  capacity(map: MapName, entries: number): void;
  /** The map was recreated bigger for the state. */
  resized(map: MapName): void;
  /** A sync refused: the state needs more entries in the map than its bound. */
  full(map: MapName): void;
  /**
   * Connected UDP sockets found balanced to an endpoint a sync removed: `destroyed`, `refused` (the
   * kernel's bpf_sock_destroy failed), `left` (a kernel without bpf_sock_destroy).
   */
  staleUdp(outcome: 'destroyed' | 'refused' | 'left', sockets: number): void;
  /** A stale UDP sweep that failed (the sync itself succeeded). */
  staleUdpSweepFailed(): void;
}

export const NO_METRICS: EbpfMetrics = {
  written() {},
  writeFailed() {},
  entries() {},
  renderProblem() {},
  capacity() {},
  resized() {},
  full() {},
  staleUdp() {},
  staleUdpSweepFailed() {},
};

/** Registers (or, for a second backend on the same registry, reuses) the metrics. */
export function createEbpfMetrics(registry: Registry): EbpfMetrics {
  const metric = metricsOn(registry);
  const writes = metric(Counter, {
    name: 'kpng_ebpf_map_writes_total',
    help: 'BPF map elements written by successful syncs, by map and operation',
    labelNames: ['map', 'op'],
  });
  const failures = metric(Counter, {
    name: 'kpng_ebpf_map_write_failures_total',
    help: 'BPF map writes the kernel refused, by map',
    labelNames: ['map'],
  });
  const entries = metric(Gauge, {
    name: 'kpng_ebpf_map_entries',
    help: 'Elements in each BPF map kpng owns',
    labelNames: ['map'],
  });
  const problems = metric(Counter, {
    name: 'kpng_ebpf_render_problems_total',
    help: 'Service parts left out of the BPF maps (see the log for which and why)',
  });
  const capacity = metric(Gauge, {
    name: 'kpng_ebpf_map_capacity',
    help: 'max_entries of each BPF map kpng sizes from the state',
    labelNames: ['map'],
  });
  const resizes = metric(Counter, {
    name: 'kpng_ebpf_map_resizes_total',
    help: 'BPF maps recreated bigger for the state (programs switched to them while attached)',
    labelNames: ['map'],
  });
  const full = metric(Counter, {
    name: 'kpng_ebpf_map_full_total',
    help: 'Syncs refused because the state needs more entries in a BPF map than its bound (--max-services, --max-endpoints)',
    labelNames: ['map'],
  });
  const stale = metric(Counter, {
    name: 'kpng_ebpf_stale_udp_sockets_total',
    help: 'Connected UDP sockets balanced to an endpoint a sync removed: destroyed, refused by the kernel, or left (a kernel without bpf_sock_destroy, Linux < 6.5)',
    labelNames: ['outcome'],
  });
  const sweepFailures = metric(Counter, {
    name: 'kpng_ebpf_stale_udp_sweep_failures_total',
    help: 'Stale UDP sweeps that failed (the sync itself succeeded)',
  });
  return {
    staleUdp: (outcome, n) => stale.inc({ outcome }, n),
    staleUdpSweepFailed: () => sweepFailures.inc(),
    capacity: (map, n) => capacity.set({ map }, n),
    resized: (map) => resizes.inc({ map }),
    full: (map) => full.inc({ map }),
    written: (map, op, n) => writes.inc({ map, op }, n),
    writeFailed: (map) => failures.inc({ map }),
    entries: (map, n) => entries.set({ map }, n),
    renderProblem: () => problems.inc(),
  };
}
