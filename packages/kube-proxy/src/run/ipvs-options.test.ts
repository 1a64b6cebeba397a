import { describe, expect, it } from 'vitest';
import { withDefaults } from '../config/defaults.js';
import { ipvsBackendConfig } from './ipvs-options.js';

describe('ipvsBackendConfig', () => {
  it("maps upstream's IPVS settings, and the iptables section's masquerade settings", () => {
    const { config, warnings } = ipvsBackendConfig(
      withDefaults({
        mode: 'ipvs',
        clusterCIDR: '10.244.0.0/16,fd00:10:244::/56',
        ipvs: {
          scheduler: 'lc',
          strictARP: true,
          excludeCIDRs: ['10.96.0.0/12'],
          tcpTimeout: 900_000,
          tcpFinTimeout: 30_000,
          udpTimeout: 300_000,
        },
        iptables: { masqueradeAll: true, masqueradeBit: 12 },
      } as Parameters<typeof withDefaults>[0]),
    );
    expect(config).toEqual({
      scheduler: 'lc',
      strictARP: true,
      tcpTimeout: 900,
      tcpFinTimeout: 30,
      udpTimeout: 300,
      excludeCIDRs: ['10.96.0.0/12'],
      clusterCIDRs: ['10.244.0.0/16', 'fd00:10:244::/56'],
      masqueradeAll: true,
      nodePortAddresses: [],
      masqueradeBit: 12,
    });
    expect(warnings).toEqual([]);
  });

  it('a blank scheduler is rr; unsupported detectors are named', () => {
    const { config, warnings } = ipvsBackendConfig(
      withDefaults({ mode: 'ipvs', detectLocalMode: 'NodeCIDR' } as Parameters<typeof withDefaults>[0]),
    );
    expect(config.scheduler).toBe('rr');
    expect(config.nodePortAddresses).toEqual([]); // every node address, as upstream's IPVS mode
    expect(warnings).toEqual([expect.stringContaining('detectLocalMode NodeCIDR')]);
  });

  it.each([[['primary']], [['198.18.0.0/16', '2001:db8::/32']]])('nodePortAddresses %j reach the backend', (list) => {
    const { config, warnings } = ipvsBackendConfig(
      withDefaults({ mode: 'ipvs', nodePortAddresses: list } as Parameters<typeof withDefaults>[0]),
    );
    expect([config.nodePortAddresses, warnings]).toEqual([list, []]);
  });
});
