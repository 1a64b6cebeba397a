// The rendered ruleset on the real iptables 1.8, legacy and nf_tables flavours, both families,
// inside a namespace this file creates: every rule shape loads as a first sync, a full resync, and
// partial syncs adding and removing Services and endpoints; what the kernel holds then equals what
// a fresh instance writes; cleanup leaves nothing of ours and keeps other programs' chains.
import type { NodeLocalState, NodePortAddresses, SyncRequest } from '@kpng/core';
import {
  allFeatures,
  clusterIPs,
  fullSyncRequest,
  nodeState as fixtureState,
  on,
  partialSyncRequest,
  type ServiceFixture,
} from '@kpng/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IptablesBackend } from '../src/backend/iptables-backend.js';
import { command } from '../src/iptables/commands.js';
import { createNamespace, kernelE2e, sweepLeftovers, type NetworkNamespace } from '@kpng/lab';

const e2e = await kernelE2e('iptables backend ruleset');

const request = (state: NodeLocalState, full: boolean, changed: string[] = [], revision = 1): SyncRequest =>
  full ? fullSyncRequest(state, revision) : partialSyncRequest(state, changed, revision);

// Each detector on one flavour (both flavours see two), to keep the file short.
const detectors = [
  {
    name: 'ClusterCIDR',
    flavour: 'legacy',
    config: { localDetector: { mode: 'ClusterCIDR', clusterCIDRs: ['198.18.0.0/17', '2001:db8::/40'] } },
  },
  {
    name: 'NodeCIDR + masqueradeAll + primary',
    flavour: 'nft',
    config: { localDetector: { mode: 'NodeCIDR' }, masqueradeAll: true, nodePortAddresses: 'primary' },
  },
  {
    name: 'BridgeInterface + tcp_be_liberal',
    flavour: 'nft',
    config: { localDetector: { mode: 'BridgeInterface', bridge: 'cbr0' }, conntrackTCPLiberal: true },
  },
  {
    name: 'InterfaceNamePrefix + CIDRs',
    flavour: 'legacy',
    config: {
      localDetector: { mode: 'InterfaceNamePrefix', prefix: 'veth' },
      nodePortAddresses: ['198.18.255.0/24', '127.0.0.0/8', '2001:db8:ff::/64'],
    },
  },
] as const;

// What core resolves the CIDR case's setting to over an interface list (a `-d` rule per address).
const RESOLVED: Partial<Record<string, NodePortAddresses & { IPv4: readonly string[] }>> = {
  'InterfaceNamePrefix + CIDRs': { IPv4: ['127.0.0.1', '198.18.255.1', '198.18.255.7'], IPv6: ['2001:db8:ff::1'] },
};

describe.skipIf(!e2e.run)('rendered ruleset on the real iptables', () => {
  let ns: NetworkNamespace;

  beforeAll(async () => {
    await sweepLeftovers();
    ns = await createNamespace('ipt-ruleset');
  });
  afterAll(async () => {
    await ns?.delete();
  });

  const save = async (flavour: 'legacy' | 'nft', family: 'IPv4' | 'IPv6'): Promise<string> =>
    (await ns.exec([command(family, flavour, 'save')])).stdout;
  const chains = (dump: string): string[] =>
    dump
      .split('\n')
      .filter((l) => l.startsWith(':KUBE-'))
      .map((l) => l.split(' ')[0] as string)
      .sort();

  {
    it.each(detectors)(
      '$flavour: loads, resyncs, syncs partially and cleans up ($name)',
      async ({ config, flavour, name }) => {
        const resolved = RESOLVED[name];
        const nodeState = (services: ServiceFixture[]): NodeLocalState => {
          const state = fixtureState(services);
          return resolved === undefined ? state : { ...state, node: { ...state.node, nodePortAddresses: resolved } };
        };
        const backend = new IptablesBackend({ ...config, flavour, netns: ns.name, conntrack: false });
        const services = allFeatures();
        await backend.sync(request(nodeState(services), true));
        await backend.sync(request(nodeState(services), true, [], 2));

        const changed: ServiceFixture[] = services
          .filter((s) => s.name !== 'sctp')
          .map((s) =>
            s.name === 'web'
              ? { ...s, endpoints: on('a', 'c', 'd') }
              : s.name === 'sticky'
                ? { ...s, endpoints: on('a', 'b', 'c') }
                : s,
          );
        changed.push({
          name: 'new-udp',
          clusterIPs: clusterIPs(40),
          ports: [{ protocol: 'UDP', port: 7, nodePort: 30007 }],
          affinity: 10,
          endpoints: on('a', 'b', 'c', 'd'),
        });
        await backend.sync(request(nodeState(changed), false, ['web', 'sticky', 'sctp', 'new-udp'], 3));
        await backend.sync(request(nodeState(services), false, ['web', 'sticky', 'sctp', 'new-udp'], 4));

        const nat = await ns.exec([command('IPv4', flavour, 'save'), '-t', 'nat']);
        const nodePortRules = nat.stdout.split('\n').filter((l) => / -j KUBE-NODEPORTS$/.test(l));
        expect(nodePortRules.map((l) => / -d (\S+) /.exec(l)?.[1] ?? 'LOCAL')).toEqual(
          resolved === undefined ? ['LOCAL'] : resolved.IPv4.map((ip) => `${ip}/32`),
        );
        const afterChurn = { v4: chains(await save(flavour, 'IPv4')), v6: chains(await save(flavour, 'IPv6')) };
        expect(afterChurn.v4.filter((c) => c.startsWith(':KUBE-SEP-')).length).toBeGreaterThan(10);
        await backend.cleanup();
        const fresh = new IptablesBackend({ ...config, flavour, netns: ns.name, conntrack: false });
        await fresh.sync(request(nodeState(services), true));
        expect({ v4: chains(await save(flavour, 'IPv4')), v6: chains(await save(flavour, 'IPv6')) }).toEqual(
          afterChurn,
        );

        await ns.exec([command('IPv4', flavour, 'iptables'), '-t', 'nat', '-N', 'SOMEONE-ELSE']);
        await fresh.cleanup();
        for (const family of ['IPv4', 'IPv6'] as const) {
          const dump = await save(flavour, family);
          expect(dump).not.toMatch(/KUBE-(?!FIREWALL)/);
        }
        expect(await save(flavour, 'IPv4')).toMatch(/:SOMEONE-ELSE/);
        await ns.exec([command('IPv4', flavour, 'iptables'), '-t', 'nat', '-X', 'SOMEONE-ELSE']);
      },
    );
  }
});
