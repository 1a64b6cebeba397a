/**
 * Structural equality of node-local objects, field by field: the node viewer calls it for every
 * recomputed Service to decide whether the Service really changed, so it must be cheap and exact
 * (no serialisation, no key-order sensitivity).
 */
import { IP_FAMILIES, type SessionAffinity } from '../model/types.js';
import type {
  FamilyAddresses,
  FamilyEndpoints,
  LocalEndpoint,
  LocalNode,
  LocalService,
  LocalServicePort,
} from './types.js';

export function localServiceEqual(a: LocalService, b: LocalService): boolean {
  if (a === b) return true;
  return (
    a.key === b.key &&
    a.namespace === b.namespace &&
    a.name === b.name &&
    a.type === b.type &&
    a.externalPolicyLocal === b.externalPolicyLocal &&
    a.internalPolicyLocal === b.internalPolicyLocal &&
    a.externallyAccessible === b.externallyAccessible &&
    a.healthCheckNodePort === b.healthCheckNodePort &&
    a.localReadyEndpoints === b.localReadyEndpoints &&
    a.preserveDestination === b.preserveDestination &&
    affinityEqual(a.sessionAffinity, b.sessionAffinity) &&
    IP_FAMILIES.every((f) => optionalEqual(a.families[f], b.families[f], familyAddressesEqual)) &&
    arrayEqual(a.ports, b.ports, servicePortEqual)
  );
}

export function localNodeEqual(a: LocalNode, b: LocalNode): boolean {
  if (a === b) return true;
  const aLabels = Object.keys(a.labels);
  return (
    a.name === b.name &&
    a.zone === b.zone &&
    a.eligible === b.eligible &&
    stringsEqual(a.addresses, b.addresses) &&
    stringsEqual(a.podCIDRs, b.podCIDRs) &&
    stringsEqual(a.serviceCIDRs ?? [], b.serviceCIDRs ?? []) &&
    aLabels.length === Object.keys(b.labels).length &&
    aLabels.every((k) => Object.hasOwn(b.labels, k) && a.labels[k] === b.labels[k])
  );
}

export function localEndpointEqual(a: LocalEndpoint, b: LocalEndpoint): boolean {
  return (
    a === b ||
    (a.ip === b.ip &&
      a.port === b.port &&
      a.ready === b.ready &&
      a.serving === b.serving &&
      a.terminating === b.terminating &&
      a.isLocal === b.isLocal &&
      a.nodeName === b.nodeName &&
      a.zone === b.zone)
  );
}

function servicePortEqual(a: LocalServicePort, b: LocalServicePort): boolean {
  return (
    a.key === b.key &&
    a.name === b.name &&
    a.protocol === b.protocol &&
    a.port === b.port &&
    a.nodePort === b.nodePort &&
    IP_FAMILIES.every((f) => optionalEqual(a.endpoints[f], b.endpoints[f], familyEndpointsEqual))
  );
}

function familyEndpointsEqual(a: FamilyEndpoints, b: FamilyEndpoints): boolean {
  return (
    a.hasAnyEndpoints === b.hasAnyEndpoints &&
    a.externallyAccessible === b.externallyAccessible &&
    a.externalPolicyLocal === b.externalPolicyLocal &&
    endpointsEqual(a.cluster, b.cluster) &&
    endpointsEqual(a.local, b.local) &&
    endpointsEqual(a.internal, b.internal) &&
    endpointsEqual(a.external, b.external) &&
    endpointsEqual(a.allReachable, b.allReachable) &&
    endpointsEqual(a.serving, b.serving)
  );
}

function familyAddressesEqual(a: FamilyAddresses, b: FamilyAddresses): boolean {
  return (
    a.clusterIP === b.clusterIP &&
    stringsEqual(a.externalIPs, b.externalIPs) &&
    stringsEqual(a.loadBalancerIPs, b.loadBalancerIPs) &&
    stringsEqual(a.loadBalancerSourceRanges, b.loadBalancerSourceRanges)
  );
}

function affinityEqual(a: SessionAffinity, b: SessionAffinity): boolean {
  if (a.type === 'ClientIP' && b.type === 'ClientIP') return a.timeoutSeconds === b.timeoutSeconds;
  return a.type === b.type;
}

function endpointsEqual(a: readonly LocalEndpoint[], b: readonly LocalEndpoint[]): boolean {
  return arrayEqual(a, b, localEndpointEqual);
}

function stringsEqual(a: readonly string[], b: readonly string[]): boolean {
  return arrayEqual(a, b, (x, y) => x === y);
}

function arrayEqual<T>(a: readonly T[], b: readonly T[], eq: (x: T, y: T) => boolean): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (!eq(a[i]!, b[i]!)) return false;
  return true;
}

function optionalEqual<T>(a: T | undefined, b: T | undefined, eq: (x: T, y: T) => boolean): boolean {
  if (a === undefined || b === undefined) return a === b;
  return eq(a, b);
}
