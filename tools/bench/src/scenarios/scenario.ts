import type { EndpointSliceObject, NodeObject, ServiceObject } from '../kube/types.js';
import { forkRandom, shuffled } from '../random/prng.js';
import { MAX_NODES, MAX_SERVICES } from './address-plan.js';
import { buildEndpointSlices, readyEndpoint } from './endpoint-slices.js';
import { createMetadataFactory } from './metadata.js';
import { createNodePortAllocator } from './nodeports.js';
import { buildNode, nodeName } from './nodes.js';
import { createPodPool } from './pod-pool.js';
import { buildService, endpointPortsFor, type ServiceShape } from './services.js';

export interface ScenarioOptions {
  readonly name?: string;
  readonly services: number;
  /** A count for every Service, or a count per Service index. */
  readonly endpointsPerService: number | ((serviceIndex: number) => number);
  /** Fraction of Services of type NodePort (`externalTrafficPolicy: Cluster`). */
  readonly nodePortFraction?: number;
  /** Fraction of Services of type LoadBalancer with `externalTrafficPolicy: Local`, an LB IP and a health check node port. */
  readonly localTrafficPolicyFraction?: number;
  /** Fraction of Services with `sessionAffinity: ClientIP` (any type). */
  readonly clientIPAffinityFraction?: number;
  /** Fraction of Services with a second port (any type). */
  readonly twoPortFraction?: number;
  /** Nodes `node-000`... (default 100); endpoints are spread over all of them. */
  readonly nodes?: number;
  /** Namespaces `bench-00`... (default 10); Service `i` lives in namespace `i % namespaces`. */
  readonly namespaces?: number;
  readonly zones?: number;
  readonly seed?: number;
  /** creationTimestamp and initial trigger time of every object (RFC 3339). */
  readonly createdAt?: string;
}

/** A generated cluster: plain JSON objects, exactly as the API server would return them. */
export interface Scenario {
  readonly name: string;
  readonly seed: number;
  /** The node a benchmark plays: `node-000`. */
  readonly benchNode: string;
  readonly services: readonly ServiceObject[];
  readonly endpointSlices: readonly EndpointSliceObject[];
  readonly nodes: readonly NodeObject[];
}

export const DEFAULT_CREATED_AT = '2025-01-01T00:00:00Z';

export function namespaceName(index: number): string {
  return `bench-${String(index).padStart(2, '0')}`;
}

export function serviceName(index: number): string {
  return `svc-${String(index).padStart(5, '0')}`;
}

/** Exactly `round(fraction * total)` members: scenario counts are exact, not statistical. */
function exactCount(fraction: number, total: number, what: string): number {
  if (!(fraction >= 0 && fraction <= 1)) throw new RangeError(`${what} must be within [0, 1], got ${fraction}`);
  return Math.round(fraction * total);
}

function chooseShapes(o: ScenarioOptions, seed: number, namespaces: number): ServiceShape[] {
  const n = o.services;
  const nodePorts = exactCount(o.nodePortFraction ?? 0, n, 'nodePortFraction');
  const loadBalancers = exactCount(o.localTrafficPolicyFraction ?? 0, n, 'localTrafficPolicyFraction');
  if (nodePorts + loadBalancers > n) throw new RangeError('nodePortFraction + localTrafficPolicyFraction exceeds 1');
  const indices = Array.from({ length: n }, (_, i) => i);
  const byType = shuffled(indices, forkRandom(seed, 'type'));
  const type = new Map<number, 'NodePort' | 'LoadBalancer'>();
  byType.slice(0, nodePorts).forEach((i) => type.set(i, 'NodePort'));
  // LB indices in Service order, so LB IPs follow Service numbering.
  const lbMembers = byType.slice(nodePorts, nodePorts + loadBalancers).sort((a, b) => a - b);
  const lbIndex = new Map(lbMembers.map((svc, k) => [svc, k]));
  lbMembers.forEach((i) => type.set(i, 'LoadBalancer'));
  const affinity = new Set(
    shuffled(indices, forkRandom(seed, 'affinity')).slice(
      0,
      exactCount(o.clientIPAffinityFraction ?? 0, n, 'clientIPAffinityFraction'),
    ),
  );
  const twoPorts = new Set(
    shuffled(indices, forkRandom(seed, 'two-ports')).slice(0, exactCount(o.twoPortFraction ?? 0, n, 'twoPortFraction')),
  );
  return indices.map((index) => {
    const k = lbIndex.get(index);
    return {
      index,
      name: serviceName(index),
      namespace: namespaceName(index % namespaces),
      type: type.get(index) ?? 'ClusterIP',
      clientIPAffinity: affinity.has(index),
      twoPorts: twoPorts.has(index),
      ...(k === undefined ? {} : { loadBalancerIndex: k }),
    };
  });
}

/** Builds a scenario from its options. Same options (seed included) give identical objects. */
export function scenario(options: ScenarioOptions): Scenario {
  const seed = options.seed ?? 1;
  const nodeCount = options.nodes ?? 100;
  const zones = options.zones ?? 3;
  const namespaces = options.namespaces ?? 10;
  const createdAt = options.createdAt ?? DEFAULT_CREATED_AT;
  if (!Number.isInteger(options.services) || options.services < 0 || options.services > MAX_SERVICES) {
    throw new RangeError(`services must be an integer in 0..${MAX_SERVICES}, got ${options.services}`);
  }
  if (!Number.isInteger(nodeCount) || nodeCount < 1 || nodeCount > MAX_NODES)
    throw new RangeError(`nodes must be 1..${MAX_NODES}`);
  if (!Number.isInteger(zones) || zones < 1 || zones > 26) throw new RangeError('zones must be 1..26');
  if (!Number.isInteger(namespaces) || namespaces < 1) throw new RangeError('namespaces must be a positive integer');
  const endpointCount =
    typeof options.endpointsPerService === 'number'
      ? () => options.endpointsPerService as number
      : options.endpointsPerService;

  const meta = createMetadataFactory(seed, createdAt);
  const nodes = Array.from({ length: nodeCount }, (_, i) => buildNode(i, nodeCount, zones, meta));
  const nodePorts = createNodePortAllocator(forkRandom(seed, 'nodeports'));
  const pods = createPodPool(nodeCount, zones, forkRandom(seed, 'pods'));
  const services: ServiceObject[] = [];
  const endpointSlices: EndpointSliceObject[] = [];
  for (const shape of chooseShapes(options, seed, namespaces)) {
    const service = buildService(shape, meta, nodePorts);
    services.push(service);
    const count = endpointCount(shape.index);
    if (!Number.isInteger(count) || count < 0)
      throw new RangeError(`endpoint count for ${shape.name} must be a non-negative integer`);
    const endpoints = pods.take(count).map((p) => readyEndpoint(p.address, p.nodeName, p.zone));
    endpointSlices.push(...buildEndpointSlices(service, endpointPortsFor(shape), endpoints, meta, createdAt));
  }
  return { name: options.name ?? 'custom', seed, benchNode: nodeName(0), services, endpointSlices, nodes };
}
