import type { NodeObject } from '../kube/types.js';
import { formatCidr } from '../kube/ipv4.js';
import { nodeIPFor, podCidrFor } from './address-plan.js';
import type { MetadataFactory } from './metadata.js';

export const REGION = 'region-1';

export function nodeName(index: number): string {
  return `node-${String(index).padStart(3, '0')}`;
}

export function zoneName(index: number): string {
  return `zone-${String.fromCharCode(97 + (index % 26))}`;
}

/** Node `index` of `count`, in zone `index % zones`, Ready, with its InternalIP and pod CIDR from the plan. */
export function buildNode(index: number, count: number, zones: number, meta: MetadataFactory): NodeObject {
  const name = nodeName(index);
  const podCIDR = formatCidr(podCidrFor(index, count));
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name,
      uid: meta.uid(),
      resourceVersion: meta.nextResourceVersion(),
      creationTimestamp: meta.createdAt,
      labels: {
        'kubernetes.io/arch': 'amd64',
        'kubernetes.io/hostname': name,
        'kubernetes.io/os': 'linux',
        'topology.kubernetes.io/region': REGION,
        'topology.kubernetes.io/zone': zoneName(index % zones),
      },
    },
    spec: { podCIDR, podCIDRs: [podCIDR] },
    status: {
      addresses: [
        { type: 'InternalIP', address: nodeIPFor(index) },
        { type: 'Hostname', address: name },
      ],
      conditions: [
        {
          type: 'Ready',
          status: 'True',
          reason: 'KubeletReady',
          message: 'kubelet is posting ready status',
          lastHeartbeatTime: meta.createdAt,
          lastTransitionTime: meta.createdAt,
        },
      ],
    },
  };
}
