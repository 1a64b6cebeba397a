// The e2e scenario, computed on the host through core's real node view (nft's fixtures) and handed
// to the guest as JSON: importing core under emulation costs over a minute, the state is plain data.
import type { NodeLocalState } from '@kpng/core';
import {
  CLIENT_RANGES,
  clusterIPs,
  externalIPs,
  nodeState,
  on,
  OTHER_RANGES,
  type ServiceFixture,
} from '@kpng/core/testing';

export const ECHO_PORT = 8080;
export const HOLD_PORT = 9090;
/** socat's SCTP echo in pod-b (the guest suite starts it). */
export const SCTP_PORT = 7777;
/** `etp-local`'s health-check node port (the fixtures have none: set on the state). */
export const HEALTH_CHECK_PORT = 32082;

const SERVICES: ServiceFixture[] = [
  {
    name: 'web',
    clusterIPs: clusterIPs(19),
    externalIPs: externalIPs(73),
    ports: [{ port: 80, nodePort: 30080 }],
    endpoints: on('a', 'c'),
  },
  {
    name: 'dns',
    clusterIPs: clusterIPs(20),
    ports: [{ port: 53, protocol: 'UDP', targetPort: ECHO_PORT }],
    endpoints: on('b'),
  },
  {
    name: 'sticky',
    clusterIPs: clusterIPs(21),
    ports: [{ port: 80 }],
    affinity: 300,
    endpoints: on('a', 'b', 'c', 'd'),
  },
  {
    name: 'etp-local',
    clusterIPs: clusterIPs(22),
    ports: [{ port: 80, nodePort: 30082 }],
    externalLocal: true,
    endpoints: on('b', 'c'),
  },
  {
    name: 'itp-local',
    clusterIPs: clusterIPs(23),
    ports: [{ port: 80 }],
    internalLocal: true,
    endpoints: on('b', 'd'),
  },
  { name: 'empty', clusterIPs: clusterIPs(24), ports: [{ port: 80 }], endpoints: [] },
  { name: 'held', clusterIPs: clusterIPs(25), ports: [{ port: 90, targetPort: HOLD_PORT }], endpoints: on('a', 'b') },
  // loadBalancerSourceRanges: the external client (203.0.113.2, 2001:db8:ee::2) is in CLIENT_RANGES only.
  {
    name: 'lb-allowed',
    clusterIPs: clusterIPs(26),
    loadBalancerIPs: externalIPs(74),
    sourceRanges: CLIENT_RANGES,
    endpoints: on('a'),
  },
  {
    name: 'lb-denied',
    clusterIPs: clusterIPs(27),
    loadBalancerIPs: externalIPs(75),
    sourceRanges: OTHER_RANGES,
    endpoints: on('a'),
  },
  {
    name: 'sctp',
    clusterIPs: clusterIPs(28),
    ports: [{ port: 7777, protocol: 'SCTP', targetPort: SCTP_PORT, nodePort: 30077 }],
    endpoints: on('b'),
  },
];

export interface E2eScenario {
  readonly initial: NodeLocalState;
  /** `held` without pod-a, and without pod-b: the graceful-termination step removes whichever holds the connection. */
  readonly heldWithoutA: NodeLocalState;
  readonly heldWithoutB: NodeLocalState;
}

export function e2eScenario(): E2eScenario {
  const without = (pod: 'a' | 'b'): NodeLocalState =>
    nodeState(SERVICES.map((s) => (s.name === 'held' ? { ...s, endpoints: on(pod === 'a' ? 'b' : 'a') } : s)));
  const withHealthCheck = (state: NodeLocalState): NodeLocalState => ({
    ...state,
    services: state.services.map((s) =>
      s.name === 'etp-local' ? { ...s, healthCheckNodePort: HEALTH_CHECK_PORT } : s,
    ),
  });
  return {
    initial: withHealthCheck(nodeState(SERVICES)),
    heldWithoutA: withHealthCheck(without('a')),
    heldWithoutB: withHealthCheck(without('b')),
  };
}
