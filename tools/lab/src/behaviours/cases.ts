/**
 * One table of Service behaviours, with real packets, that every Linux backend must show on the
 * lab with core's `allFeatures()` scenario programmed (semantics 3.x; upstream checklist items
 * noted). Backends run it with `behaviourCases`.
 */
import type { Client } from './proxy-lab.js';

export type Pod = 'a' | 'b' | 'c' | 'd';

export interface BehaviourCase {
  readonly name: string;
  readonly from: Client;
  /** See `destination()`. */
  readonly to: string;
  readonly port: number;
  readonly proto?: 'tcp' | 'udp';
  /** The pods that must answer (all of them, and nobody else), or the failure. */
  readonly expect: readonly Pod[] | 'refused' | 'timeout';
  /** Whether the endpoint sees the client's own address. */
  readonly source?: 'kept' | 'masqueraded';
  /** Every answer comes from one pod (ClientIP affinity). */
  readonly sticky?: boolean;
  /** A pod meeting itself sees itself masqueraded, the others see it (hairpin). */
  readonly hairpin?: boolean;
}

export const BEHAVIOURS: readonly BehaviourCase[] = [
  {
    name: 'ClusterIP from a local pod reaches every endpoint, source kept (items 2, 5)',
    from: 'b',
    to: 'cluster:10',
    port: 80,
    expect: ['a', 'c'],
    source: 'kept',
  },
  // (A remote pod's ClusterIP traffic to an endpoint on its own node would return asymmetrically:
  // its own node's proxy handles that in a real cluster.)
  {
    name: 'ClusterIP from a remote pod to an endpoint here',
    from: 'd',
    to: 'cluster:11',
    port: 53,
    proto: 'udp',
    expect: ['b'],
    source: 'kept',
  },
  { name: 'ClusterIP from the node itself', from: 'host', to: 'cluster:10', port: 80, expect: ['a', 'c'] },
  {
    name: 'ClusterIP from outside the cluster is masqueraded',
    from: 'external',
    to: 'cluster:10',
    port: 80,
    expect: ['a', 'c'],
    source: 'masqueraded',
  },
  {
    name: 'NodePort from an external client, masqueraded (item 11)',
    from: 'external',
    to: 'node',
    port: 30080,
    expect: ['a', 'c'],
    source: 'masqueraded',
  },
  { name: 'NodePort from a remote pod', from: 'd', to: 'node', port: 30080, expect: ['a', 'c'], source: 'masqueraded' },
  { name: 'NodePort from the node itself', from: 'host', to: 'node', port: 30080, expect: ['a', 'c'] },
  { name: 'UDP ClusterIP', from: 'a', to: 'cluster:11', port: 53, proto: 'udp', expect: ['b'], source: 'kept' },
  {
    name: 'UDP NodePort',
    from: 'external',
    to: 'node',
    port: 30053,
    proto: 'udp',
    expect: ['b'],
    source: 'masqueraded',
  },
  { name: 'no endpoints: ClusterIP refused (item 32)', from: 'b', to: 'cluster:12', port: 80, expect: 'refused' },
  { name: 'no endpoints: NodePort refused', from: 'external', to: 'node', port: 30082, expect: 'refused' },
  { name: 'no endpoints: external IP refused', from: 'external', to: 'external:68', port: 80, expect: 'refused' },
  { name: 'no endpoints: refused from the node itself', from: 'host', to: 'cluster:12', port: 80, expect: 'refused' },
  {
    name: 'LB IP from an allowed source',
    from: 'external',
    to: 'external:70',
    port: 80,
    expect: ['a', 'c'],
    source: 'masqueraded',
  },
  {
    name: 'LB IP from a source outside loadBalancerSourceRanges: dropped',
    from: 'external',
    to: 'external:71',
    port: 80,
    expect: 'timeout',
  },
  {
    name: 'source ranges do not apply to the NodePort',
    from: 'external',
    to: 'node',
    port: 30086,
    expect: ['a'],
    source: 'masqueraded',
  },
  {
    name: 'ETP Local NodePort: local endpoint only, source kept',
    from: 'external',
    to: 'node',
    port: 30084,
    expect: ['a'],
    source: 'kept',
  },
  {
    name: 'ETP Local external IP: local endpoint only, source kept',
    from: 'external',
    to: 'external:72',
    port: 80,
    expect: ['a'],
    source: 'kept',
  },
  {
    name: 'ETP Local from a local pod: short-circuit to every endpoint',
    from: 'b',
    to: 'node',
    port: 30084,
    expect: ['a', 'c'],
    source: 'kept',
  },
  { name: 'ETP Local from the node itself: every endpoint', from: 'host', to: 'node', port: 30084, expect: ['a', 'c'] },
  { name: 'ETP Local without a local endpoint: dropped', from: 'external', to: 'node', port: 30085, expect: 'timeout' },
  {
    name: 'ITP Local: local endpoints only (item 34)',
    from: 'd',
    to: 'cluster:17',
    port: 80,
    expect: ['a'],
    source: 'kept',
  },
  { name: 'ITP Local without a local endpoint: dropped', from: 'b', to: 'cluster:18', port: 80, expect: 'timeout' },
  {
    name: 'ClientIP affinity: one client always meets one endpoint (item 24)',
    from: 'c',
    to: 'cluster:19',
    port: 80,
    expect: ['a', 'b'],
    sticky: true,
  },
  {
    name: 'ClientIP affinity through the NodePort (item 27)',
    from: 'external',
    to: 'node',
    port: 30088,
    expect: ['a', 'b'],
    sticky: true,
  },
  {
    name: 'hairpin: a pod reaches itself through its Service (item 6)',
    from: 'a',
    to: 'cluster:10',
    port: 80,
    expect: ['a', 'c'],
    hairpin: true,
  },
];

/** nftables mode only (semantics 3.2): iptables mode has no ClusterIP guard. */
export const CLUSTER_IP_GUARD: readonly BehaviourCase[] = [
  { name: 'ClusterIP on a port no Service exposes: refused', from: 'b', to: 'cluster:10', port: 81, expect: 'refused' },
];

/** iptables mode only (semantics 3.3): IPv4 NodePorts on 127.0.0.1 with localhostNodePorts. */
export const LOCALHOST_NODEPORTS: readonly BehaviourCase[] = [
  {
    name: 'NodePort on 127.0.0.1 from the node itself',
    from: 'host',
    to: 'localhost',
    port: 30080,
    expect: ['a', 'c'],
  },
];
