import { UsageError } from '@kpng/core';
import { describe, expect, it } from 'vitest';
import { backend, parseIptablesFlags } from './backend-module.js';

describe('parseIptablesFlags', () => {
  it("defaults are upstream iptables mode's: every local address, localhost NodePorts, no detector, both families", () => {
    const config = parseIptablesFlags({});
    expect(config).toMatchObject({
      nodePortAddresses: [],
      localhostNodePorts: true,
      localDetector: { mode: 'None' },
      families: ['IPv4', 'IPv6'],
      flavour: 'auto',
    });
  });

  const good: { values: Record<string, string | boolean>; expected: Record<string, unknown> }[] = [
    {
      values: { 'cluster-cidr': '10.0.0.0/8, fd00::/48' },
      expected: { localDetector: { mode: 'ClusterCIDR', clusterCIDRs: ['10.0.0.0/8', 'fd00::/48'] } },
    },
    { values: { 'nodeport-addresses': 'primary' }, expected: { nodePortAddresses: 'primary' } },
    {
      values: { 'nodeport-addresses': '198.18.0.0/16,::/0' },
      expected: { nodePortAddresses: ['198.18.0.0/16', '::/0'] },
    },
    { values: { 'iptables-localhost-nodeports': 'false' }, expected: { localhostNodePorts: false } },
    {
      values: { 'iptables-flavour': 'legacy', 'conntrack-tcp-be-liberal': true },
      expected: { flavour: 'legacy', conntrackTCPLiberal: true },
    },
    {
      values: { 'masquerade-all': true, 'masquerade-bit': '3', 'ip-families': 'IPv6' },
      expected: { masqueradeAll: true, masqueradeBit: 3, families: ['IPv6'] },
    },
    { values: { 'write-timeout': '2s' }, expected: { writeTimeoutMs: 2_000 } },
  ];
  it.each(good)('$values', ({ values, expected }) => {
    expect(parseIptablesFlags(values)).toMatchObject(expected);
  });

  const bad: { values: Record<string, string>; message: RegExp }[] = [
    { values: { 'iptables-flavour': 'ebpf' }, message: /--iptables-flavour takes auto, legacy or nft/ },
    {
      values: { 'iptables-localhost-nodeports': 'yes' },
      message: /--iptables-localhost-nodeports takes true or false/,
    },
    { values: { 'detect-local-mode': 'ClusterCIDR' }, message: /needs --cluster-cidr/ },
    { values: { 'nodeport-addresses': '10.0.0.0/33' }, message: /bad CIDR/ },
    { values: { 'masquerade-bit': '40' }, message: /masqueradeBit/ },
    {
      values: { 'detect-local-mode': 'BridgeInterface', 'pod-bridge-interface': 'br0 -j ACCEPT' },
      message: /bad bridge interface name/,
    },
    { values: { 'write-timeout': '5' }, message: /--write-timeout: invalid duration "5"/ },
  ];
  it.each(bad)('refuses $values', ({ values, message }) => {
    expect(() => parseIptablesFlags(values)).toThrow(UsageError);
    expect(() => parseIptablesFlags(values)).toThrow(message);
  });

  it('is the iptables proxy mode', () => {
    expect(backend).toMatchObject({ name: 'iptables', program: 'kpng-iptables', proxyMode: 'iptables' });
    expect(Object.keys(backend.flags)).toContain('detect-local-mode');
  });
});
