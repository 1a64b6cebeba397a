import { AnsweringExecer } from '@kpng/kit/testing';
import { describe, expect, it } from 'vitest';
import { withDefaults } from '../config/defaults.js';
import { kernelspaceBackendOptions } from './kernelspace-options.js';
import { Registry } from 'prom-client';
import { createModeBackend } from './mode-backend.js';
import { loadMode } from './modes.js';

describe('kernelspace mode (Windows HNS)', () => {
  it('maps the winkernel section and the healthz port onto the HNS backend', () => {
    const c = withDefaults();
    c.winkernel = {
      networkName: 'vxlan0',
      sourceVip: '10.244.1.254',
      enableDSR: true,
      rootHnsEndpointName: 'host-ep',
      forwardHealthCheckVip: true,
    };
    c.healthzBindAddress = '0.0.0.0:10266';
    expect(kernelspaceBackendOptions(c, {})).toEqual({
      options: {
        networkName: 'vxlan0',
        sourceVip: '10.244.1.254',
        enableDSR: true,
        rootHnsEndpointName: 'host-ep',
        forwardHealthCheckVip: true,
        healthzPort: 10266,
      },
      warnings: [],
    });
  });

  it("defaults: $KUBE_NETWORK, upstream's root endpoint name and healthz port", () => {
    const { options, warnings } = kernelspaceBackendOptions(withDefaults(), { KUBE_NETWORK: 'cbr0' });
    expect(options).toEqual({
      networkName: 'cbr0',
      enableDSR: false,
      forwardHealthCheckVip: false,
      healthzPort: 10256,
    });
    expect(warnings).toEqual([]);
    expect(kernelspaceBackendOptions(withDefaults(), {}).warnings).toEqual([
      expect.stringMatching(/networkName is empty/),
    ]);
  });

  it('is a mode of this build, backed by the win-kernel backend', async () => {
    const c = withDefaults();
    c.winkernel.networkName = 'cbr0';
    c.mode = 'kernelspace';
    const { backend } = await createModeBackend(c, { nodeName: 'node-a', registry: new Registry() });
    expect(backend.name).toBe('win-kernel');
  });

  it('--cleanup: each mode cleans only on its own OS (kernelspace on Windows, nftables elsewhere), touching nothing otherwise', async () => {
    const c = withDefaults();
    c.winkernel.networkName = 'cbr0';
    // Neither call may reach a kernel or a DLL: both return before doing anything.
    expect(await (await loadMode('kernelspace')).cleanup(c, { platform: 'linux' })).toEqual([]);
    expect(await (await loadMode('nftables')).cleanup(c, { platform: 'win32' })).toEqual([]);
    await expect((await loadMode('kernelspace')).cleanup(c, { platform: 'win32' })).rejects.toThrow(
      /cannot load computenetwork\.dll/,
    );
  });

  it('explain: on Linux it says HNS does not exist here, before asking the API server for the Service', async () => {
    const c = withDefaults();
    c.winkernel.networkName = 'cbr0';
    const mode = await loadMode('kernelspace');
    let lookups = 0;
    const ctx = {
      execer: new AnsweringExecer({}),
      lookupService: () => (lookups++, Promise.reject(new Error('no API'))),
    };
    await expect(mode.explain!(c, { namespace: 'default', name: 'web' }, ctx)).rejects.toThrow(
      /^HNS \(the Windows Host Compute Network service\) does not exist on linux: /,
    );
    expect(lookups).toBe(0);
    expect(ctx.execer.calls).toEqual([]);
  });
});
