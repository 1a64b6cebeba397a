/**
 * One scenario with every Service feature, dual-stack, on the lab's addresses (tools/lab
 * ADDRESS_PLAN): local pods pod-a/pod-b (198.18.1.10/.11, 2001:db8:1::10/11), remote pods
 * pod-c/pod-d (198.18.2.10/.11, 2001:db8:2::10/11), Services in 198.19.0.0/16 and
 * 2001:db8:5e::/64, external/LB IPs in 203.0.113.64/26 and 2001:db8:eb::/64, the external client
 * at 203.0.113.2 / 2001:db8:ee::2. Golden dumps, the tracer tables and the kernel e2e share it.
 */
import type { EndpointFixture, ServiceFixture } from './state-fixtures.js';

export const POD = {
  a: { v4: '198.18.1.10', v6: '2001:db8:1::10' },
  b: { v4: '198.18.1.11', v6: '2001:db8:1::11' },
  c: { v4: '198.18.2.10', v6: '2001:db8:2::10' },
  d: { v4: '198.18.2.11', v6: '2001:db8:2::11' },
} as const;

export type PodName = keyof typeof POD;

export const REMOTE_NODE = 'node-b';

/** Endpoints on the given pods, both families; c and d run on the remote node. */
export function on(...pods: PodName[]): EndpointFixture[] {
  return pods.flatMap((pod) => {
    const node = pod === 'c' || pod === 'd' ? REMOTE_NODE : undefined;
    return [POD[pod].v4, POD[pod].v6].map((ip) => (node === undefined ? { ip } : { ip, node }));
  });
}

/** ClusterIP `198.19.0.<n>` and `2001:db8:5e::<n>` (n < 256, hex for IPv6). */
export function clusterIPs(n: number): string[] {
  return [`198.19.0.${n}`, `2001:db8:5e::${n.toString(16)}`];
}

/** External or LB IP `203.0.113.<n>` and `2001:db8:eb::<n>`. */
export function externalIPs(n: number): string[] {
  return [`203.0.113.${n}`, `2001:db8:eb::${n.toString(16)}`];
}

export const CLIENT_RANGES = ['203.0.113.0/28', '2001:db8:ee::/64'];
export const OTHER_RANGES = ['203.0.113.128/25', '2001:db8:dd::/64'];

export function allFeatures(): ServiceFixture[] {
  return [
    { name: 'web', clusterIPs: clusterIPs(10), ports: [{ port: 80, nodePort: 30080 }], endpoints: on('a', 'c') },
    {
      name: 'dns',
      clusterIPs: clusterIPs(11),
      ports: [{ protocol: 'UDP', port: 53, targetPort: 8080, nodePort: 30053 }],
      endpoints: on('b'),
    },
    {
      name: 'empty',
      clusterIPs: clusterIPs(12),
      ports: [{ port: 80, nodePort: 30082 }],
      externalIPs: externalIPs(68),
      endpoints: [],
    },
    {
      name: 'lb',
      clusterIPs: clusterIPs(13),
      ports: [{ port: 80, nodePort: 30083 }],
      loadBalancerIPs: externalIPs(70),
      sourceRanges: CLIENT_RANGES,
      endpoints: on('a', 'c'),
    },
    {
      name: 'lb-closed',
      clusterIPs: clusterIPs(14),
      ports: [{ port: 80, nodePort: 30086 }],
      loadBalancerIPs: externalIPs(71),
      sourceRanges: OTHER_RANGES,
      endpoints: on('a'),
    },
    {
      name: 'local',
      clusterIPs: clusterIPs(15),
      ports: [{ port: 80, nodePort: 30084 }],
      externalIPs: externalIPs(72),
      externalLocal: true,
      endpoints: on('a', 'c'),
    },
    {
      name: 'local-none',
      clusterIPs: clusterIPs(16),
      ports: [{ port: 80, nodePort: 30085 }],
      externalLocal: true,
      endpoints: on('c'),
    },
    { name: 'internal', clusterIPs: clusterIPs(17), internalLocal: true, endpoints: on('a', 'c') },
    { name: 'internal-none', clusterIPs: clusterIPs(18), internalLocal: true, endpoints: on('c') },
    {
      name: 'sticky',
      clusterIPs: clusterIPs(19),
      ports: [{ port: 80, nodePort: 30088 }],
      externalIPs: externalIPs(73),
      affinity: 60,
      endpoints: on('a', 'b'),
    },
    {
      name: 'sctp',
      clusterIPs: clusterIPs(20),
      ports: [{ protocol: 'SCTP', port: 9, targetPort: 8080 }],
      endpoints: on('b'),
    },
    {
      name: 'sticky-local',
      clusterIPs: clusterIPs(21),
      ports: [{ port: 80, nodePort: 30089 }],
      affinity: 60,
      externalLocal: true,
      endpoints: on('a', 'c'),
    },
  ];
}

/** Seconds of the `brief` Service's ClientIP affinity in `affinityScenario()`. */
export const BRIEF_AFFINITY_SECONDS = 2;

/** ClientIP affinity across a port's addresses (`sticky`: ClusterIP 19, NodePort 30088, external 73) and its expiry (`brief`: ClusterIP 22). */
export function affinityScenario(): ServiceFixture[] {
  return [
    {
      name: 'sticky',
      clusterIPs: clusterIPs(19),
      ports: [{ port: 80, nodePort: 30088 }],
      externalIPs: externalIPs(73),
      affinity: 300,
      endpoints: on('a', 'b', 'c', 'd'),
    },
    {
      name: 'brief',
      clusterIPs: clusterIPs(22),
      ports: [{ port: 80 }],
      affinity: BRIEF_AFFINITY_SECONDS,
      endpoints: on('a', 'b', 'c', 'd'),
    },
  ];
}

/** The Services of the lifecycle e2e (`@kpng/lab` lifecycleCases): `web` and `dns` endpoints and `sticky`'s affinity change as it goes. */
export function lifecycleScenario(state: {
  readonly web: readonly PodName[];
  readonly dns: readonly PodName[];
  readonly sticky?: boolean;
}): ServiceFixture[] {
  return [
    { name: 'web', clusterIPs: clusterIPs(10), ports: [{ port: 80, nodePort: 30080 }], endpoints: on(...state.web) },
    {
      name: 'dns',
      clusterIPs: clusterIPs(11),
      ports: [{ protocol: 'UDP', port: 53, nodePort: 30053 }],
      endpoints: on(...state.dns),
    },
    {
      name: 'hold',
      clusterIPs: clusterIPs(12),
      ports: [{ port: 90, targetPort: 9090, nodePort: 30090 }],
      endpoints: on('a'),
    },
    {
      name: 'sticky',
      clusterIPs: clusterIPs(19),
      ports: [{ port: 80 }],
      ...(state.sticky === false ? {} : { affinity: 300 }),
      endpoints: on('a', 'b'),
    },
  ];
}
