/**
 * Defence in depth at render time: the node-local state a backend is about to write into a kernel
 * tool's text, with every value that would not pass the strict validators (`render-values.ts`)
 * left out. The state normally comes from core's own node view, which only holds converted API
 * objects, but an agent (`--connect`) decodes it from a stream, and a compromised or
 * version-skewed core must not be able to write a command of its own into `iptables-restore`.
 *
 * - A Service with a bad Service-level value (a ClusterIP, external or LB IP, source range, port,
 *   NodePort, protocol, health-check node port or affinity timeout) is left out whole: a backend
 *   renders it as deleted.
 * - An endpoint with a bad address or port is left out of every list of its port and family; the
 *   Service's other endpoints render. When that empties the port's cluster list, the port has no
 *   endpoints (`hasAnyEndpoints` false: rejected), else `hasAnyEndpoints` is kept (traffic that only
 *   refused local endpoints would have served is dropped, as for a node without local endpoints).
 * - A node address, pod CIDR or service CIDR that is bad is left out of the node.
 *
 * Each refusal is reported once per object version: results are cached by object identity, so
 * Services that did not change (core's node view and the stream decoder keep their objects) cost
 * a map lookup per sync. When nothing is refused the very same objects are returned.
 */
import { IP_FAMILIES, type IPFamily } from '../model/types.js';
import type {
  FamilyAddresses,
  FamilyEndpoints,
  LocalEndpoint,
  LocalNode,
  LocalService,
  LocalServicePort,
  NodeLocalState,
} from '../nodeview/types.js';
import type { FamilyNodePortAddresses, NodePortAddresses } from '../nodeview/node-port-addresses.js';
import {
  isAffinityTimeout,
  isCanonicalCIDR,
  isCanonicalIP,
  isOptionalPort,
  isPort,
  isProtocol,
} from './render-values.js';

export type RefusedKind = 'Service' | 'endpoint' | 'node';
export type RefusalReason = 'address' | 'cidr' | 'port' | 'protocol' | 'affinity';

export interface RenderRefusal {
  readonly kind: RefusedKind;
  /** The Service key (`ns/name`) for Services and endpoints, the node name for a node. */
  readonly key: string;
  readonly reason: RefusalReason;
  /** Which field held the value (`clusterIP`, `ports[1].nodePort`, `endpoints.IPv4`, `podCIDRs`...). */
  readonly field: string;
  /** The refused value, JSON-quoted and cut to 80 characters: safe for a log line. */
  readonly value: string;
}

export type RefusalObserver = (refusal: RenderRefusal) => void;

const MAX_SHOWN = 80;

function shown(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > MAX_SHOWN ? `${text.slice(0, MAX_SHOWN)}...` : text;
}

/** Checks states for one backend; keeps what it decided per object, so only new objects cost. */
export class RenderGuard {
  readonly #observe: RefusalObserver;
  /** Per Service object: the Service to render (itself when clean, a copy without bad endpoints) or null (refused). */
  readonly #services = new WeakMap<LocalService, LocalService | null>();
  readonly #nodes = new WeakMap<LocalNode, LocalNode>();

  constructor(observe: RefusalObserver) {
    this.#observe = observe;
  }

  /** `state` with every value a backend must not render left out (the same object when nothing is). */
  state(state: NodeLocalState): NodeLocalState {
    const node = this.node(state.node);
    let services: LocalService[] | undefined;
    for (let i = 0; i < state.services.length; i++) {
      const svc = state.services[i] as LocalService;
      const kept = this.service(svc);
      if (kept === svc && services === undefined) continue;
      services ??= state.services.slice(0, i);
      if (kept !== undefined) services.push(kept);
    }
    if (node === state.node && services === undefined) return state;
    return { node, services: services ?? state.services };
  }

  /** The Service to render, or undefined when it is refused. */
  service(svc: LocalService): LocalService | undefined {
    let kept = this.#services.get(svc);
    if (kept === undefined) {
      kept = checkService(svc, this.#observe);
      this.#services.set(svc, kept);
    }
    return kept ?? undefined;
  }

  node(node: LocalNode): LocalNode {
    let kept = this.#nodes.get(node);
    if (kept === undefined) {
      kept = checkNode(node, this.#observe);
      this.#nodes.set(node, kept);
    }
    return kept;
  }
}

function checkNode(node: LocalNode, observe: RefusalObserver): LocalNode {
  const refuse = (reason: RefusalReason, field: string, value: unknown): void =>
    observe({ kind: 'node', key: node.name, reason, field, value: shown(value) });
  const keep = (list: readonly string[], field: string, ok: (v: unknown) => boolean, reason: RefusalReason) => {
    if (list.every((v) => ok(v))) return list;
    return list.filter((v) => {
      if (ok(v)) return true;
      refuse(reason, field, v);
      return false;
    });
  };
  const addresses = keep(node.addresses, 'addresses', (v) => isCanonicalIP(v), 'address');
  const podCIDRs = keep(node.podCIDRs, 'podCIDRs', (v) => isCanonicalCIDR(v), 'cidr');
  const serviceCIDRs =
    node.serviceCIDRs === undefined
      ? undefined
      : keep(node.serviceCIDRs, 'serviceCIDRs', (v) => isCanonicalCIDR(v), 'cidr');
  const npa = node.nodePortAddresses;
  const nodePortAddresses: NodePortAddresses | undefined =
    npa === undefined
      ? undefined
      : {
          IPv4: keepFamily(npa.IPv4, 'IPv4'),
          IPv6: keepFamily(npa.IPv6, 'IPv6'),
        };
  function keepFamily(list: FamilyNodePortAddresses, family: IPFamily): FamilyNodePortAddresses {
    if (list === 'all') return list;
    return keep(list, `nodePortAddresses.${family}`, (v) => isCanonicalIP(v, family), 'address');
  }
  if (
    addresses === node.addresses &&
    podCIDRs === node.podCIDRs &&
    serviceCIDRs === node.serviceCIDRs &&
    (npa === undefined || (nodePortAddresses!.IPv4 === npa.IPv4 && nodePortAddresses!.IPv6 === npa.IPv6))
  )
    return node;
  return {
    ...node,
    addresses,
    podCIDRs,
    ...(serviceCIDRs === undefined ? {} : { serviceCIDRs }),
    ...(nodePortAddresses === undefined ? {} : { nodePortAddresses }),
  };
}

/** A Service-level problem, as [reason, field, value]; undefined when there is none. */
type Problem = readonly [RefusalReason, string, unknown];

function serviceProblem(svc: LocalService): Problem | undefined {
  for (const family of IP_FAMILIES) {
    const fa = svc.families[family];
    if (fa === undefined) continue;
    const problem = addressProblem(fa, family);
    if (problem !== undefined) return problem;
  }
  if (!isOptionalPort(svc.healthCheckNodePort)) return ['port', 'healthCheckNodePort', svc.healthCheckNodePort];
  if (svc.sessionAffinity.type === 'ClientIP' && !isAffinityTimeout(svc.sessionAffinity.timeoutSeconds))
    return ['affinity', 'sessionAffinity.timeoutSeconds', svc.sessionAffinity.timeoutSeconds];
  for (const [i, port] of svc.ports.entries()) {
    if (!isProtocol(port.protocol)) return ['protocol', `ports[${i}].protocol`, port.protocol];
    if (!isPort(port.port)) return ['port', `ports[${i}].port`, port.port];
    if (!isOptionalPort(port.nodePort)) return ['port', `ports[${i}].nodePort`, port.nodePort];
  }
  return undefined;
}

function addressProblem(fa: FamilyAddresses, family: IPFamily): Problem | undefined {
  if (!isCanonicalIP(fa.clusterIP, family)) return ['address', `clusterIP.${family}`, fa.clusterIP];
  for (const ip of fa.externalIPs) if (!isCanonicalIP(ip, family)) return ['address', `externalIPs.${family}`, ip];
  for (const ip of fa.loadBalancerIPs)
    if (!isCanonicalIP(ip, family)) return ['address', `loadBalancerIPs.${family}`, ip];
  for (const cidr of fa.loadBalancerSourceRanges)
    if (!isCanonicalCIDR(cidr, family)) return ['cidr', `loadBalancerSourceRanges.${family}`, cidr];
  return undefined;
}

function endpointProblem(ep: LocalEndpoint, family: IPFamily): Problem | undefined {
  if (!isCanonicalIP(ep.ip, family)) return ['address', `endpoints.${family}`, ep.ip];
  if (!isPort(ep.port)) return ['port', `endpoints.${family}.port`, ep.port];
  return undefined;
}

/** The Service to render (itself, or a copy without refused endpoints), or null when refused. */
function checkService(svc: LocalService, observe: RefusalObserver): LocalService | null {
  const problem = serviceProblem(svc);
  if (problem !== undefined) {
    const [reason, field, value] = problem;
    observe({ kind: 'Service', key: svc.key, reason, field, value: shown(value) });
    return null;
  }
  let ports: LocalServicePort[] | undefined;
  for (let i = 0; i < svc.ports.length; i++) {
    const port = svc.ports[i] as LocalServicePort;
    const kept = checkPortEndpoints(svc, port, observe);
    if (kept === port && ports === undefined) continue;
    ports ??= svc.ports.slice(0, i);
    ports.push(kept);
  }
  return ports === undefined ? svc : { ...svc, ports };
}

function checkPortEndpoints(svc: LocalService, port: LocalServicePort, observe: RefusalObserver): LocalServicePort {
  let endpoints: Partial<Record<IPFamily, FamilyEndpoints>> | undefined;
  for (const family of IP_FAMILIES) {
    const fe = port.endpoints[family];
    if (fe === undefined) continue;
    const refused = new Set<LocalEndpoint>();
    // Distinct arrays only (internal is usually cluster or local): each list the backend reads is checked.
    for (const list of new Set([fe.allReachable, fe.serving, fe.cluster, fe.local, fe.internal, fe.external])) {
      for (const ep of list) {
        if (refused.has(ep)) continue;
        const problem = endpointProblem(ep, family);
        if (problem === undefined) continue;
        refused.add(ep);
        const [reason, field, value] = problem;
        observe({ kind: 'endpoint', key: svc.key, reason, field, value: shown(value) });
      }
    }
    if (refused.size === 0) continue;
    endpoints ??= { ...port.endpoints };
    endpoints[family] = withoutEndpoints(fe, refused);
  }
  return endpoints === undefined ? port : { ...port, endpoints };
}

/** `fe` without `refused`; lists that were one array stay one array (backends compare them by identity). */
function withoutEndpoints(fe: FamilyEndpoints, refused: ReadonlySet<LocalEndpoint>): FamilyEndpoints {
  const filtered = new Map<readonly LocalEndpoint[], readonly LocalEndpoint[]>();
  const keep = (list: readonly LocalEndpoint[]): readonly LocalEndpoint[] => {
    let out = filtered.get(list);
    if (out === undefined) filtered.set(list, (out = list.filter((ep) => !refused.has(ep))));
    return out;
  };
  const cluster = keep(fe.cluster);
  return {
    ...fe,
    // Core's view never has endpoints without a cluster list where one is used (backends rely on
    // it: an external chain short-circuits to the cluster chain); a refusal that empties it leaves
    // the port without endpoints.
    hasAnyEndpoints: fe.hasAnyEndpoints && !(fe.cluster.length > 0 && cluster.length === 0),
    cluster,
    local: keep(fe.local),
    internal: keep(fe.internal),
    external: keep(fe.external),
    allReachable: keep(fe.allReachable),
    serving: keep(fe.serving),
  };
}
