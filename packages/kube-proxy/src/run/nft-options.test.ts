import { describe, expect, it } from 'vitest';
import { resolveConfig } from '@kpng/nft';
import { withDefaults } from '../config/defaults.js';
import type { PartialConfiguration } from '../config/types.js';
import { nftBackendOptions } from './nft-options.js';

const base: PartialConfiguration = { mode: 'nftables', detectLocalMode: 'ClusterCIDR', nodePortAddresses: ['primary'] };

describe('nftBackendOptions', () => {
  it.each<[string, PartialConfiguration, object]>([
    [
      'ClusterCIDR with a dual-stack pair',
      { clusterCIDR: '198.18.0.0/16,2001:db8::/48' },
      { localDetector: { mode: 'ClusterCIDR', clusterCIDRs: ['198.18.0.0/16', '2001:db8::/48'] } },
    ],
    [
      'NodeCIDR (the podCIDR comes from the Node)',
      { detectLocalMode: 'NodeCIDR' },
      { localDetector: { mode: 'NodeCIDR' } },
    ],
    [
      'BridgeInterface',
      { detectLocalMode: 'BridgeInterface', detectLocal: { bridgeInterface: 'cbr0' } },
      { localDetector: { mode: 'BridgeInterface', bridge: 'cbr0' } },
    ],
    [
      'InterfaceNamePrefix',
      { detectLocalMode: 'InterfaceNamePrefix', detectLocal: { interfaceNamePrefix: 'veth' } },
      { localDetector: { mode: 'InterfaceNamePrefix', prefix: 'veth' } },
    ],
    ['primary NodePort addresses', {}, { nodePortAddresses: 'primary' }],
    [
      'NodePort CIDRs',
      { nodePortAddresses: ['198.18.255.0/24', '2001:db8:ff::/64'] },
      { nodePortAddresses: ['198.18.255.0/24', '2001:db8:ff::/64'] },
    ],
    [
      'the nftables section masquerade settings',
      { nftables: { masqueradeAll: true, masqueradeBit: 5 }, iptables: { masqueradeBit: 9 } },
      { masqueradeAll: true, masqueradeBit: 5 },
    ],
    ["upstream's table by default, so runbooks for `ip kube-proxy` keep working", {}, { tableName: 'kube-proxy' }],
    ['the configured table name', { nftables: { tableName: 'kpng' } }, { tableName: 'kpng' }],
  ])('%s', (_name, partial, expected) => {
    const { options } = nftBackendOptions(withDefaults({ ...base, ...partial }));
    expect(options).toMatchObject(expected);
    expect(() => resolveConfig(options)).not.toThrow();
  });

  it('turns ClusterCIDR without a cluster CIDR into no detector, with a warning', () => {
    const { options, warnings } = nftBackendOptions(withDefaults(base));
    expect(options.localDetector).toEqual({ mode: 'None' });
    expect(warnings).toEqual([expect.stringContaining('no clusterCIDR is set')]);
  });
});
