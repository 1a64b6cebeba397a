/**
 * The NetworkPolicy bench cluster: 100 namespaces x 100 pods (10,000) over 100 nodes (100 pods on
 * this node), 10 policies per namespace (1,000). Each policy selects one app of its namespace and
 * allows ingress from the next app of its namespace and from one tier of the pods of another team's
 * namespaces, on a numeric and a named port; one in five also limits egress (DNS to its team).
 */
import { convertNamespace, convertNetworkPolicy, convertPod } from '@kpng/core/runtime';
import type { NetworkPolicyModel, PolicyNamespace, PolicyPod } from '@kpng/core/runtime';

export const SHAPE = { namespaces: 100, podsPerNamespace: 100, nodes: 100, policiesPerNamespace: 10 } as const;
export const THIS_NODE = 'node-0';

function unwrap<T>(result: { ok: true; value: T } | { ok: false; errors: readonly string[] }): T {
  if (!result.ok) throw new Error(result.errors.join('; '));
  return result.value;
}

/** Pod `i`'s addresses: 198.18.100.0 and up (clear of the lab's 198.18.1-2.x), 2001:db8:64::/64. */
export function podIPs(i: number): readonly [string, string] {
  return [`198.18.${100 + (i >> 8)}.${i & 255}`, `2001:db8:64::${(i + 1).toString(16)}`];
}

export function namespaceObject(index: number): PolicyNamespace {
  const name = `ns-${index}`;
  return unwrap(
    convertNamespace({
      metadata: { name, labels: { 'kubernetes.io/metadata.name': name, team: `team-${index % 10}` } },
    }),
  );
}

export function podObject(
  namespace: number,
  j: number,
  overrides: { labels?: Record<string, string>; ips?: readonly string[]; node?: string; name?: string } = {},
): PolicyPod {
  const i = namespace * SHAPE.podsPerNamespace + j;
  return unwrap(
    convertPod({
      metadata: {
        namespace: `ns-${namespace}`,
        name: overrides.name ?? `pod-${j}`,
        labels: overrides.labels ?? { app: `app-${j % 10}`, tier: `t${j % 3}` },
      },
      spec: {
        nodeName: overrides.node ?? `node-${(i * 7) % SHAPE.nodes}`,
        containers: [{ name: 'c', ports: [{ name: 'http', containerPort: 80 }] }],
      },
      status: { phase: 'Running', podIPs: (overrides.ips ?? podIPs(i)).map((ip) => ({ ip })) },
    }),
  );
}

export function policyObject(namespace: number, k: number, port: number, name = `np-${k}`): NetworkPolicyModel {
  const team = (namespace + 1) % 10;
  const egress = k % 5 === 0;
  return unwrap(
    convertNetworkPolicy({
      metadata: { namespace: `ns-${namespace}`, name },
      spec: {
        podSelector: { matchLabels: { app: `app-${k % 10}` } },
        policyTypes: egress ? ['Ingress', 'Egress'] : ['Ingress'],
        ingress: [
          {
            from: [
              { podSelector: { matchLabels: { app: `app-${(k + 1) % 10}` } } },
              {
                namespaceSelector: { matchLabels: { team: `team-${team}` } },
                podSelector: { matchLabels: { tier: `t${k % 3}` } },
              },
            ],
            ports: [{ port }, { port: 'http' }],
          },
        ],
        ...(egress
          ? {
              egress: [
                {
                  to: [{ namespaceSelector: { matchLabels: { team: `team-${namespace % 10}` } } }],
                  ports: [{ protocol: 'UDP', port: 53 }],
                },
              ],
            }
          : {}),
      },
    }),
  );
}

export interface Cluster {
  readonly namespaces: readonly PolicyNamespace[];
  readonly pods: readonly PolicyPod[];
  readonly policies: readonly NetworkPolicyModel[];
}

export function cluster(port: number, withPolicies: boolean): Cluster {
  const namespaces: PolicyNamespace[] = [];
  const pods: PolicyPod[] = [];
  const policies: NetworkPolicyModel[] = [];
  for (let n = 0; n < SHAPE.namespaces; n++) {
    namespaces.push(namespaceObject(n));
    for (let j = 0; j < SHAPE.podsPerNamespace; j++) pods.push(podObject(n, j));
    if (withPolicies) for (let k = 0; k < SHAPE.policiesPerNamespace; k++) policies.push(policyObject(n, k, port));
  }
  return { namespaces, pods, policies };
}
