import { resolveConfig } from '@kpng/iptables';
import { describe, expect, it } from 'vitest';
import { withDefaults } from '../config/defaults.js';
import type { PartialConfiguration } from '../config/types.js';
import { iptablesBackendOptions } from './iptables-options.js';

const base: PartialConfiguration = { mode: 'iptables', detectLocalMode: 'ClusterCIDR', clusterCIDR: '198.18.0.0/16' };

describe('iptablesBackendOptions', () => {
  it.each<[string, PartialConfiguration, object]>([
    ['every local address by default, as upstream', {}, { nodePortAddresses: [] }],
    ['primary NodePort addresses', { nodePortAddresses: ['primary'] }, { nodePortAddresses: 'primary' }],
    ['NodePort CIDRs', { nodePortAddresses: ['198.18.255.0/24'] }, { nodePortAddresses: ['198.18.255.0/24'] }],
    [
      'the iptables section',
      {
        iptables: { masqueradeAll: true, masqueradeBit: 9, localhostNodePorts: false },
        nftables: { masqueradeBit: 5 },
      },
      { masqueradeAll: true, masqueradeBit: 9, localhostNodePorts: false },
    ],
    ['the detector', { detectLocalMode: 'NodeCIDR' }, { localDetector: { mode: 'NodeCIDR' } }],
  ])('%s', (_name, partial, expected) => {
    const { options } = iptablesBackendOptions(withDefaults({ ...base, ...partial }));
    expect(options).toMatchObject(expected);
    expect(() => resolveConfig(options)).not.toThrow();
  });

  it('takes tcp_be_liberal from the kernel, not from conntrack.tcpBeLiberal (which only writes it at start)', () => {
    const liberalConfig = withDefaults({ ...base, conntrack: { tcpBeLiberal: true } });
    expect(iptablesBackendOptions(liberalConfig).options.conntrackTCPLiberal).toBe(false);
    expect(iptablesBackendOptions(withDefaults(base), true).options.conntrackTCPLiberal).toBe(true);
  });
});
