import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { startMetricsServer } from '@kpng/core/runtime';
import { withDefaults } from '../config/defaults.js';
import { loadBackendModule } from '@kpng/core/runtime';
import { createModeBackend } from './mode-backend.js';
import { availableModes, defaultMode, loadMode, MODES } from './modes.js';

describe('proxy modes per OS', () => {
  it.each([
    ['linux', ['iptables', 'nftables', 'ipvs', 'ebpf'], 'iptables'],
    ['win32', ['kernelspace'], 'kernelspace'],
  ] as const)('%s runs %j; a blank mode means %s', (platform, modes, blank) => {
    expect(availableModes(platform)).toEqual(modes);
    expect(defaultMode(platform)).toBe(blank);
  });

  it('every mode names the OS it exists on and loads its backend on demand', async () => {
    for (const [name, mode] of MODES) expect([name, ['linux', 'win32'].includes(mode.platform)]).toEqual([name, true]);
    for (const name of MODES.keys())
      expect([name, typeof (await loadMode(name)).backendOptions]).toEqual([name, 'function']);
    await expect(loadMode('userspace')).rejects.toThrow(/no backend for mode userspace/);
  });

  it('a mode says it has privileged set-up steps exactly when its kube-proxy side has sysctls or prepare', async () => {
    for (const [name, entry] of MODES) {
      const mode = await entry.load();
      expect([name, entry.setup]).toEqual([name, mode.sysctls !== undefined || mode.prepare !== undefined]);
    }
  });

  it("every mode's backend is a BackendModule answering /proxyMode with the mode's name (kpng --backend loads the same)", async () => {
    for (const [name, mode] of MODES)
      expect([name, (await loadBackendModule(mode.backend, (s) => import(s))).proxyMode]).toEqual([name, name]);
  });
});

describe('ebpf mode (kpng extension)', () => {
  it('builds the ebpf backend (its nft packet path north-south only) without touching the kernel; a netns is refused', async () => {
    // Constructing opens nothing: the programs attach in setup(), which this test never calls.
    const config = withDefaults({ mode: 'ebpf' });
    const { backend } = await createModeBackend(config, { nodeName: 'node-a', registry: new Registry() });
    expect(backend.name).toBe('ebpf');
    await expect(
      createModeBackend(config, { nodeName: 'node-a', registry: new Registry(), netns: 'kpng-t-unused' }),
    ).rejects.toThrow(/KPNG_NETNS/);
  });
});

describe('ipvs mode metrics', () => {
  it("the ipvs backend registers its metrics on kube-proxy's registry, so /metrics serves them", async () => {
    const registry = new Registry();
    // Constructing the backend opens nothing (netlink, nft and kube-ipvs0 are touched in setup()).
    const { backend } = await createModeBackend(withDefaults({ mode: 'ipvs' }), {
      nodeName: 'node-a',
      registry,
      netns: 'kpng-t-unused',
    });
    expect(backend.name).toBe('ipvs');
    const server = await startMetricsServer({ registry, port: 0, proxyMode: 'ipvs' });
    try {
      const text = await (await fetch(`http://127.0.0.1:${server.address.port}/metrics`)).text();
      for (const name of [
        'kubeproxy_sync_proxy_rules_nftables_sync_failures_total',
        'kpng_ipvs_netlink_failures_total',
        'kpng_ipvs_virtual_servers',
        'kpng_ipvs_real_servers',
        'kpng_ipvs_draining_real_servers',
      ])
        expect(text).toContain(`# TYPE ${name} `);
    } finally {
      await server.close();
    }
  });
});
