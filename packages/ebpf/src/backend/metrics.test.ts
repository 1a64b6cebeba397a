import { exposedMetrics } from '@kpng/kit/testing';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { createEbpfMetrics } from './metrics.js';

// Dashboards and alerts read these names, types, labels and help texts: pinned here.
describe('the eBPF backend metrics', () => {
  it('expose their names, types, labels and help', async () => {
    const registry = new Registry();
    const metrics = createEbpfMetrics(registry);
    metrics.written('services4', 'update', 3);
    metrics.writeFailed('endpoints');
    metrics.entries('services6', 2);
    metrics.renderProblem();
    metrics.capacity('services4', 1024);
    metrics.resized('endpoints');
    metrics.full('services4');
    metrics.staleUdp('destroyed', 1);
    metrics.staleUdpSweepFailed();
    expect(await exposedMetrics(registry)).toEqual([
      'gauge kpng_ebpf_map_capacity{map} max_entries of each BPF map kpng sizes from the state',
      'gauge kpng_ebpf_map_entries{map} Elements in each BPF map kpng owns',
      'counter kpng_ebpf_map_full_total{map} Syncs refused because the state needs more entries in a BPF map than its bound (--max-services, --max-endpoints)',
      'counter kpng_ebpf_map_resizes_total{map} BPF maps recreated bigger for the state (programs switched to them while attached)',
      'counter kpng_ebpf_map_write_failures_total{map} BPF map writes the kernel refused, by map',
      'counter kpng_ebpf_map_writes_total{map,op} BPF map elements written by successful syncs, by map and operation',
      'counter kpng_ebpf_render_problems_total{} Service parts left out of the BPF maps (see the log for which and why)',
      'counter kpng_ebpf_stale_udp_sockets_total{outcome} Connected UDP sockets balanced to an endpoint a sync removed: destroyed, refused by the kernel, or left (a kernel without bpf_sock_destroy, Linux < 6.5)',
      'counter kpng_ebpf_stale_udp_sweep_failures_total{} Stale UDP sweeps that failed (the sync itself succeeded)',
    ]);
  });

  it('are declared once per registry: a second backend on it shares them', async () => {
    const registry = new Registry();
    createEbpfMetrics(registry).written('services4', 'update', 2);
    createEbpfMetrics(registry).written('services4', 'update', 3);
    const writes = (await registry.getMetricsAsJSON()).find((m) => m.name === 'kpng_ebpf_map_writes_total');
    expect(writes?.values.map((v) => v.value)).toEqual([5]);
  });
});
