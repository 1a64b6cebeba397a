/** Wire numbers of the enums both .proto files declare (same values in localnet.v1 and global.v1). */
import type { IPFamily, Protocol, ServiceType, TrafficPolicy } from '../../model/types.js';
import { malformed } from './wire/reader.js';

export const SERVICE_TYPE_WIRE: Readonly<Record<ServiceType, number>> = { ClusterIP: 1, NodePort: 2, LoadBalancer: 3 };
export const PROTOCOL_WIRE: Readonly<Record<Protocol, number>> = { TCP: 1, UDP: 2, SCTP: 3 };
export const FAMILY_WIRE: Readonly<Record<IPFamily, number>> = { IPv4: 1, IPv6: 2 };
export const TRAFFIC_POLICY_WIRE: Readonly<Record<TrafficPolicy, number>> = { Cluster: 1, Local: 2 };

const SERVICE_TYPES: readonly (ServiceType | undefined)[] = [undefined, 'ClusterIP', 'NodePort', 'LoadBalancer'];
const PROTOCOLS: readonly (Protocol | undefined)[] = [undefined, 'TCP', 'UDP', 'SCTP'];
const FAMILIES: readonly (IPFamily | undefined)[] = [undefined, 'IPv4', 'IPv6'];
const TRAFFIC_POLICIES: readonly (TrafficPolicy | undefined)[] = [undefined, 'Cluster', 'Local'];

function lookup<T>(table: readonly (T | undefined)[], n: number, what: string): T {
  const v = table[n];
  if (v === undefined) throw malformed(`unknown ${what} ${n}`);
  return v;
}

export const serviceTypeFromWire = (n: number): ServiceType => lookup(SERVICE_TYPES, n, 'service type');
export const protocolFromWire = (n: number): Protocol => lookup(PROTOCOLS, n, 'protocol');
export const familyFromWire = (n: number): IPFamily => lookup(FAMILIES, n, 'IP family');
export const trafficPolicyFromWire = (n: number): TrafficPolicy => lookup(TRAFFIC_POLICIES, n, 'traffic policy');
