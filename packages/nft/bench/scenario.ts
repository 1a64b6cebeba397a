/**
 * The PERFORMANCE.md `s10k` shape as node-local state: 10,000 Services x 10 endpoints, 10% NodePort,
 * 5% ClientIP affinity, 5% externalTrafficPolicy Local, 2 ports on 10%; endpoints spread over 100
 * nodes. 100,000 distinct pod addresses do not fit the lab's pod range, so endpoints draw from a
 * pool of 60,000 addresses of 198.18.0.0/16 with distinct target ports (the kernel's cost depends
 * on element counts, not on address diversity). Nothing here sends a packet.
 */
import type { NodeLocalState } from '@kpng/core';
import { nodeState, OTHER_NODE, THIS_NODE, type ServiceFixture } from '../src/testing/fixtures.js';

export interface ScaleOptions {
  readonly services: number;
  readonly endpoints: number;
}

export function serviceFixture(i: number, endpoints: number, generation = 0): ServiceFixture {
  const ports = i % 10 === 3 ? [{ name: 'a', port: 80 }, { name: 'b', port: 443, targetPort: 8443 }] : [{ port: 80 }];
  const nodePort = i % 10 === 0;
  return {
    name: `svc-${i}`,
    namespace: 'scale',
    clusterIPs: [`198.19.${(i >> 8) & 255}.${i & 255}`],
    ports: ports.map((p, k) => ({ ...p, ...(nodePort ? { nodePort: 30000 + ((i * 2 + k) % 2768) } : {}) })),
    ...(i % 20 === 1 ? { affinity: 10800 } : {}),
    ...(i % 20 === 2 && nodePort ? {} : i % 20 === 2 ? { externalLocal: true, externalIPs: [`203.0.113.${64 + (i % 64)}`] } : {}),
    endpoints: Array.from({ length: endpoints }, (_, e) => {
      const pod = (i * endpoints + e + generation) % 60_000;
      return { ip: `198.18.${(pod >> 8) & 255}.${pod & 255}`, node: pod % 100 === 0 ? THIS_NODE : `${OTHER_NODE}-${pod % 100}` };
    }),
  };
}

export function scaleState(options: ScaleOptions): NodeLocalState {
  return nodeState(Array.from({ length: options.services }, (_, i) => serviceFixture(i, options.endpoints)), {
    addresses: ['198.18.255.1'],
    podCIDRs: ['198.18.1.0/24'],
  });
}

/** The same state with one endpoint of one Service replaced (`generation` shifts its pods). */
export function withOneEndpointChange(state: NodeLocalState, options: ScaleOptions, index: number, generation: number): NodeLocalState {
  const changed = nodeState([serviceFixture(index, options.endpoints, generation)], { addresses: ['198.18.255.1'], podCIDRs: ['198.18.1.0/24'] });
  const replacement = changed.services[0];
  if (replacement === undefined) throw new Error('no service');
  return { node: state.node, services: state.services.map((s) => (s.key === replacement.key ? replacement : s)) };
}
