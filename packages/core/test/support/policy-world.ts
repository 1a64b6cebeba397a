/** Fixtures for the policy view's tests: a small cluster and raw NetworkPolicies. */
import { convertNamespace, convertNetworkPolicy, convertPod } from '../../src/policy/convert.js';
import type { NetworkPolicyModel, PolicyNamespace, PolicyPod } from '../../src/policy/types.js';

export const NODE = 'node-1';

export function pod(
  namespace: string,
  name: string,
  ip: number,
  labels: Record<string, string>,
  extra: { node?: string; hostNetwork?: boolean; ports?: readonly object[] } = {},
): PolicyPod {
  const result = convertPod({
    metadata: { namespace, name, labels },
    spec: {
      nodeName: extra.node ?? NODE,
      hostNetwork: extra.hostNetwork ?? false,
      containers: [{ name: 'c', ports: extra.ports ?? [] }],
    },
    status: { podIPs: [{ ip: `198.18.1.${ip}` }, { ip: `2001:db8:1::${ip}` }] },
  });
  if (!result.ok) throw new Error(result.errors.join('; '));
  return result.value;
}

export function namespace(name: string, labels: Record<string, string>): PolicyNamespace {
  const result = convertNamespace({ metadata: { name, labels: { 'kubernetes.io/metadata.name': name, ...labels } } });
  if (!result.ok) throw new Error(result.errors.join('; '));
  return result.value;
}

export function policy(namespaceName: string, name: string, spec: object): NetworkPolicyModel {
  const result = convertNetworkPolicy({ metadata: { namespace: namespaceName, name }, spec });
  if (!result.ok) throw new Error(result.errors.join('; '));
  return result.value;
}

/** The cluster of the table tests: `server` is the pod under test (named ports http/TCP 80, dns/UDP 53). */
export function cluster(): { namespaces: PolicyNamespace[]; pods: PolicyPod[] } {
  return {
    namespaces: [namespace('default', { team: 'a' }), namespace('other', { team: 'b' }), namespace('third', {})],
    pods: [
      pod(
        'default',
        'server',
        10,
        { app: 'server' },
        {
          ports: [
            { name: 'http', containerPort: 80 },
            { name: 'dns', containerPort: 53, protocol: 'UDP' },
          ],
        },
      ),
      pod('default', 'client', 11, { app: 'client' }),
      pod('default', 'stranger', 12, { app: 'stranger' }, { node: 'node-2' }),
      pod('other', 'client', 13, { app: 'client' }, { node: 'node-2' }),
      pod('other', 'web', 14, { app: 'web' }, { node: 'node-2', ports: [{ name: 'http', containerPort: 8080 }] }),
      pod('third', 'client', 15, { app: 'client' }, { node: 'node-2' }),
    ],
  };
}

/** `198.18.1.N` (or `2001:db8:1::N` for IPv6): the cluster's pod addresses. */
export function ipOf(n: number, family: 'IPv4' | 'IPv6' = 'IPv4'): string {
  return family === 'IPv4' ? `198.18.1.${n}` : `2001:db8:1::${n}`;
}
