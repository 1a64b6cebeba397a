// The hostile objects of the fault suite: valid but extreme (many ports, many endpoints, the longest
// names the API allows, FQDN slices, a slice whose Service does not exist yet, a burst of Services)
// and objects that fail conversion (an invalid clusterIP, a slice with a bad address) until fixed.
// Addresses from the lab's plan; the endpoints that are not lab pods are never connected to.
import type { KubeObject } from '../apiserver/index.js';
import type { LabPod } from '../netns/index.js';
import { ECHO_PORT, NODE_NAME } from './objects.js';

export interface ServicePort {
  readonly name: string;
  readonly port: number;
}

export function hostileService(name: string, clusterIP: string, ports: readonly ServicePort[]): KubeObject {
  return {
    kind: 'Service',
    apiVersion: 'v1',
    metadata: { name, namespace: 'default' },
    spec: {
      type: 'ClusterIP',
      clusterIP,
      clusterIPs: [clusterIP],
      ipFamilies: ['IPv4'],
      ports: ports.map((p) => ({ name: p.name, protocol: 'TCP', port: p.port, targetPort: ECHO_PORT })),
    },
  };
}

/** A slice of `service` whose ports (by name) all lead to the echo port, one endpoint per address. */
export function hostileSlice(
  name: string,
  service: string,
  portNames: readonly string[],
  addresses: readonly string[],
  addressType: 'IPv4' | 'FQDN' = 'IPv4',
): KubeObject {
  return {
    kind: 'EndpointSlice',
    apiVersion: 'discovery.k8s.io/v1',
    metadata: { name, namespace: 'default', labels: { 'kubernetes.io/service-name': service } },
    addressType,
    ports: portNames.map((port) => ({ name: port, protocol: 'TCP', port: ECHO_PORT })),
    endpoints: addresses.map((address) => ({
      addresses: [address],
      conditions: { ready: true, serving: true, terminating: false },
      nodeName: NODE_NAME,
    })),
  };
}

/** `count` ports named p0.. on 1000.. */
export function manyPorts(count: number): ServicePort[] {
  return Array.from({ length: count }, (_, i) => ({ name: `p${i}`, port: 1000 + i }));
}

/** `pod`'s address and `count - 1` addresses of pods that do not exist (198.18.200.0/22). */
export function manyEndpoints(pod: LabPod, count: number): string[] {
  return [pod.ipv4, ...Array.from({ length: count - 1 }, (_, i) => `198.18.${200 + (i >> 8)}.${i & 255}`)];
}

/** The i-th Service of the burst: 198.19.4.0/22, no endpoints. */
export function burstService(i: number): KubeObject {
  return hostileService(`burst-${i}`, `198.19.${4 + (i >> 8)}.${i & 255}`, [{ name: 'http', port: 80 }]);
}

/** The longest names the API accepts: a 63-character label (Service, port) and a 253-character subdomain (slice). */
export const LONGEST_LABEL = 'l' + 'o'.repeat(61) + 'n';
export const LONGEST_PORT_NAME = 'p' + 'o'.repeat(61) + 't';
export const LONGEST_SUBDOMAIN = ['a'.repeat(63), 'b'.repeat(63), 'c'.repeat(63), 'd'.repeat(61)].join('.');
