import { describe, expect, it } from 'vitest';
import type { LocalEndpoint, LocalServicePort } from '@kpng/core';
import { endpointChain, SERVICE_CHAIN, servicePortChains } from './names.js';

const port = (protocol: 'TCP' | 'UDP'): LocalServicePort => ({
  key: 'x' as never,
  name: 'p80',
  protocol,
  port: 80,
  nodePort: 0,
  endpoints: {},
});
const ep = (ip: string, p: number): LocalEndpoint => ({
  ip,
  port: p,
  ready: true,
  serving: true,
  terminating: false,
  isLocal: false,
});

describe('chain names', () => {
  // Expected values from upstream's pkg/proxy/iptables/proxier_test.go (TestOverallIPTablesRules).
  it.each([
    ['ns1/svc1:p80', 'TCP', 'KUBE-SVC-XPGD46QRK7WJZT7O'],
    ['ns2/svc2:p80', 'TCP', 'KUBE-SVC-GNZBNJ2PO5MGZ6GT'],
  ] as const)('%s %s -> %s', (name, protocol, expected) => {
    expect(servicePortChains(name, port(protocol)).cluster).toBe(expected);
  });

  it('endpoint chains hash the service port, protocol and ip:port', () => {
    expect(endpointChain('ns1/svc1:p80', port('TCP'), ep('10.180.0.1', 80))).toBe('KUBE-SEP-SXIVWICOYRO3J4NJ');
  });

  it('every generated name is a per-service chain name and fits iptables (28 chars)', () => {
    const chains = servicePortChains('a/b', port('UDP'));
    for (const name of [...Object.values(chains), endpointChain('a/b', port('UDP'), ep('2001:db8::1', 53))]) {
      expect(name).toMatch(SERVICE_CHAIN);
      expect(name.length).toBeLessThanOrEqual(28);
    }
  });
});
