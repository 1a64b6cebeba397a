/**
 * The checks every object passes before it reaches the model or a backend, whichever door it came
 * in by: the conversion of API objects (`convert*` build objects that pass them, a property test
 * holds that), the global stream (`--api`: the ApiSource checks each decoded object) and the
 * node-local stream (`--connect`: each decoded state). A stream peer is a program of ours, but a
 * compromised or version-skewed one must not paste a newline into `iptables-restore` input.
 *
 * Every check is linear in the object, and the lists are bounded ({@link OBJECT_LIMITS}), so one
 * object cannot stall the event loop however it was crafted.
 */
import type {
  EndpointModel,
  EndpointSliceModel,
  IPFamily,
  NodeModel,
  ServiceCIDRModel,
  ServiceModel,
  SessionAffinity,
} from '../../model/types.js';
import type {
  FamilyAddresses,
  FamilyEndpoints,
  LocalNode,
  LocalService,
  NodeLocalState,
} from '../../nodeview/types.js';
import { canonicalCIDR, canonicalIP, ipFamilyOf } from '../../util/ip.js';
import { policyStateRefusals } from '../../policy/check.js';
import { OBJECT_LIMITS } from './limits.js';
import { nameProblem } from './names.js';

export { OBJECT_LIMITS } from './limits.js';

const PROTOCOLS = ['TCP', 'UDP', 'SCTP'];
const MAX_PROBLEMS = 10;

/** Problems found, bounded: the first few and a count of the rest. */
class Problems {
  readonly #list: string[] = [];
  #more = 0;

  add(path: string, problem: string): void {
    if (this.#list.length < MAX_PROBLEMS) this.#list.push(`${path}: ${problem}`);
    else this.#more++;
  }

  get found(): readonly string[] {
    return this.#more === 0 ? this.#list : [...this.#list, `... and ${this.#more} more`];
  }

  name(value: unknown, path: string, rule: 'label' | 'subdomain'): void {
    if (typeof value !== 'string') return this.add(path, 'must be a string');
    const problem = nameProblem(value, rule);
    if (problem !== undefined) this.add(path, problem);
  }

  /** An optional name: '' is allowed. */
  optionalName(value: unknown, path: string, rule: 'label' | 'subdomain'): void {
    if (value !== '') this.name(value, path, rule);
  }

  /** Printable text of bounded length: no control character (a newline would start a new line in a kernel tool's input). */
  text(value: unknown, path: string): void {
    if (typeof value !== 'string') return this.add(path, 'must be a string');
    if (value.length > OBJECT_LIMITS.textLength)
      return this.add(path, `must be at most ${OBJECT_LIMITS.textLength} characters, got ${value.length}`);
    if (/[\u0000-\u001f\u007f]/.test(value)) this.add(path, 'must not contain control characters');
  }

  int(value: unknown, path: string, min: number, max: number): void {
    if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max)
      this.add(path, `must be an integer between ${min} and ${max}, got ${describe(value)}`);
  }

  oneOf(value: unknown, path: string, allowed: readonly unknown[]): void {
    if (!allowed.includes(value)) this.add(path, `must be one of ${allowed.join(', ')}, got ${describe(value)}`);
  }

  /** A list no longer than `max`; false (and a problem) when it is not one. */
  list(value: unknown, path: string, max: number = OBJECT_LIMITS.listEntries): value is readonly unknown[] {
    if (!Array.isArray(value)) {
      this.add(path, 'must be a list');
      return false;
    }
    if (value.length > max) {
      this.add(path, `must have at most ${max} entries, got ${value.length}`);
      return false;
    }
    return true;
  }

  /** Canonical IPs (of `family` when given). */
  ips(value: unknown, path: string, family?: IPFamily): void {
    if (!this.list(value, path)) return;
    value.forEach((ip, i) => this.ip(ip, `${path}[${i}]`, family));
  }

  ip(value: unknown, path: string, family?: IPFamily): void {
    if (typeof value !== 'string' || canonicalIP(value) !== value)
      return this.add(path, `must be an IP address in canonical form, got ${describe(value)}`);
    if (family !== undefined && ipFamilyOf(value) !== family) this.add(path, `must be an ${family} address`);
  }

  cidrs(value: unknown, path: string, family?: IPFamily): void {
    if (!this.list(value, path)) return;
    value.forEach((cidr, i) => {
      const at = `${path}[${i}]`;
      if (typeof cidr !== 'string' || canonicalCIDR(cidr) !== cidr)
        return this.add(at, `must be a CIDR in canonical form, got ${describe(cidr)}`);
      if (family !== undefined && ipFamilyOf(cidr.slice(0, cidr.indexOf('/'))) !== family)
        this.add(at, `must be an ${family} CIDR`);
    });
  }

  affinity(value: SessionAffinity, path: string): void {
    if (value.type === 'None') return;
    if (value.type !== 'ClientIP') return this.add(`${path}.type`, 'must be None or ClientIP');
    this.int(value.timeoutSeconds, `${path}.timeoutSeconds`, 1, 86_400);
  }

  /** What a Service port and a node-local Service port share. */
  servicePort(port: { name: unknown; protocol: unknown; port: unknown; nodePort: unknown }, at: string): void {
    this.optionalName(port.name, `${at}.name`, 'label');
    this.oneOf(port.protocol, `${at}.protocol`, PROTOCOLS);
    this.int(port.port, `${at}.port`, 1, 65535);
    this.int(port.nodePort, `${at}.nodePort`, 0, 65535);
  }

  labels(value: unknown, path: string): void {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return this.add(path, 'must be a map');
    const keys = Object.keys(value);
    if (keys.length > OBJECT_LIMITS.listEntries)
      return this.add(path, `must have at most ${OBJECT_LIMITS.listEntries} entries, got ${keys.length}`);
    if (Object.getPrototypeOf(value) !== Object.prototype && Object.getPrototypeOf(value) !== null)
      return this.add(path, 'must be a plain map');
    for (const key of keys) {
      this.text(key, `${path} key`);
      this.text((value as Record<string, unknown>)[key], `${path}[${describe(key)}]`);
    }
  }
}

function describe(value: unknown): string {
  if (typeof value === 'string') return value.length <= 64 ? JSON.stringify(value) : `a string of ${value.length}`;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return value === null ? 'null' : typeof value;
}

const SERVICE_TYPES = ['ClusterIP', 'NodePort', 'LoadBalancer'];
const TRAFFIC_POLICIES = ['Cluster', 'Local'];
const FAMILIES = ['IPv4', 'IPv6'];
/** A container port name (IANA_SVC_NAME), as `targetPort` may name one. */
const PORT_NAME = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/** Why a Service of the model is not one `convertService` could have built; empty when it is. */
export function serviceProblems(svc: ServiceModel): readonly string[] {
  const p = new Problems();
  p.name(svc.namespace, 'namespace', 'label');
  p.name(svc.name, 'name', 'subdomain');
  p.oneOf(svc.type, 'type', SERVICE_TYPES);
  if (p.list(svc.clusterIPs, 'clusterIPs', 2)) {
    if (svc.clusterIPs.length === 0) p.add('clusterIPs', 'must have one or two entries');
    p.ips(svc.clusterIPs, 'clusterIPs');
  }
  p.ips(svc.externalIPs, 'externalIPs');
  p.ips(svc.loadBalancerIPs, 'loadBalancerIPs');
  p.cidrs(svc.loadBalancerSourceRanges, 'loadBalancerSourceRanges');
  if (p.list(svc.ports, 'ports')) {
    svc.ports.forEach((port, i) => {
      const at = `ports[${i}]`;
      p.servicePort(port, at);
      if (typeof port.targetPort === 'number') p.int(port.targetPort, `${at}.targetPort`, 1, 65535);
      else if (typeof port.targetPort !== 'string' || port.targetPort.length > 15 || !PORT_NAME.test(port.targetPort))
        p.add(`${at}.targetPort`, 'must be a port number or a port name');
    });
  }
  p.affinity(svc.sessionAffinity, 'sessionAffinity');
  p.oneOf(svc.externalTrafficPolicy, 'externalTrafficPolicy', TRAFFIC_POLICIES);
  p.oneOf(svc.internalTrafficPolicy, 'internalTrafficPolicy', TRAFFIC_POLICIES);
  p.int(svc.healthCheckNodePort, 'healthCheckNodePort', 0, 65535);
  if (svc.trafficDistribution !== undefined) p.text(svc.trafficDistribution, 'trafficDistribution');
  if (svc.preserveDestination !== undefined && svc.preserveDestination !== true)
    p.add('preserveDestination', 'must be true or absent');
  return p.found;
}

function endpointProblems(p: Problems, ep: EndpointModel, at: string, family: IPFamily): void {
  p.ip(ep.address, `${at}.address`, family);
  for (const flag of ['ready', 'serving', 'terminating'] as const)
    if (typeof ep[flag] !== 'boolean') p.add(`${at}.${flag}`, 'must be a boolean');
  if (ep.nodeName !== undefined) p.optionalName(ep.nodeName, `${at}.nodeName`, 'subdomain');
  if (ep.zone !== undefined) p.text(ep.zone, `${at}.zone`);
  for (const hints of ['zoneHints', 'nodeHints'] as const) {
    const list = ep[hints];
    if (list === undefined || !p.list(list, `${at}.${hints}`, OBJECT_LIMITS.endpointHints)) continue;
    list.forEach((h, i) => p.text(h, `${at}.${hints}[${i}]`));
  }
}

/** Why an EndpointSlice of the model is not one `convertEndpointSlice` could have built; empty when it is. */
export function sliceProblems(slice: EndpointSliceModel): readonly string[] {
  const p = new Problems();
  p.name(slice.namespace, 'namespace', 'label');
  p.name(slice.name, 'name', 'subdomain');
  p.name(slice.serviceName, 'serviceName', 'label');
  p.oneOf(slice.addressType, 'addressType', FAMILIES);
  if (p.list(slice.ports, 'ports', OBJECT_LIMITS.slicePorts)) {
    slice.ports.forEach((port, i) => {
      p.optionalName(port.name, `ports[${i}].name`, 'label');
      p.oneOf(port.protocol, `ports[${i}].protocol`, PROTOCOLS);
      p.int(port.port, `ports[${i}].port`, 1, 65535);
    });
  }
  if (p.list(slice.endpoints, 'endpoints', OBJECT_LIMITS.sliceEndpoints)) {
    slice.endpoints.forEach((ep, i) => endpointProblems(p, ep, `endpoints[${i}]`, slice.addressType));
  }
  return p.found;
}

/** Why a Node of the model is not one `convertNode` could have built; empty when it is. */
export function nodeProblems(node: NodeModel): readonly string[] {
  const p = new Problems();
  p.name(node.name, 'name', 'subdomain');
  p.labels(node.labels, 'labels');
  p.cidrs(node.podCIDRs, 'podCIDRs');
  p.ips(node.addresses, 'addresses');
  if (typeof node.eligible !== 'boolean') p.add('eligible', 'must be a boolean');
  return p.found;
}

/** Why a ServiceCIDR of the model is not one `convertServiceCIDR` could have built; empty when it is. */
export function serviceCIDRProblems(cidr: ServiceCIDRModel): readonly string[] {
  const p = new Problems();
  p.name(cidr.name, 'name', 'subdomain');
  p.cidrs(cidr.cidrs, 'cidrs');
  return p.found;
}

function familyAddressProblems(p: Problems, a: FamilyAddresses, at: string, family: IPFamily): void {
  p.ip(a.clusterIP, `${at}.clusterIP`, family);
  p.ips(a.externalIPs, `${at}.externalIPs`, family);
  p.ips(a.loadBalancerIPs, `${at}.loadBalancerIPs`, family);
  p.cidrs(a.loadBalancerSourceRanges, `${at}.loadBalancerSourceRanges`, family);
}

const ENDPOINT_LISTS = ['cluster', 'local', 'internal', 'external', 'allReachable', 'serving'] as const;

function familyEndpointProblems(p: Problems, e: FamilyEndpoints, at: string, family: IPFamily): void {
  // The lists share endpoint objects (a decoded state resolves them from one table): check each once.
  const seen = new Set<object>();
  for (const name of ENDPOINT_LISTS) {
    const list = e[name];
    if (!p.list(list, `${at}.${name}`, OBJECT_LIMITS.sliceEndpoints * 10)) continue;
    list.forEach((ep, i) => {
      if (seen.has(ep)) return;
      seen.add(ep);
      const where = `${at}.${name}[${i}]`;
      p.ip(ep.ip, `${where}.ip`, family);
      p.int(ep.port, `${where}.port`, 1, 65535);
      if (ep.nodeName !== undefined) p.optionalName(ep.nodeName, `${where}.nodeName`, 'subdomain');
      if (ep.zone !== undefined) p.text(ep.zone, `${where}.zone`);
    });
  }
}

/** Why a Service of a node-local state is not one core's node view could have built; empty when it is. */
export function localServiceProblems(svc: LocalService): readonly string[] {
  const p = new Problems();
  p.name(svc.namespace, 'namespace', 'label');
  p.name(svc.name, 'name', 'subdomain');
  if (svc.key !== `${svc.namespace}/${svc.name}`) p.add('key', 'must be namespace/name');
  p.oneOf(svc.type, 'type', SERVICE_TYPES);
  for (const [family, addresses] of Object.entries(svc.families)) {
    if (!FAMILIES.includes(family)) p.add('families', `unknown family ${describe(family)}`);
    else if (addresses) familyAddressProblems(p, addresses, `families.${family}`, family as IPFamily);
  }
  p.affinity(svc.sessionAffinity, 'sessionAffinity');
  p.int(svc.healthCheckNodePort, 'healthCheckNodePort', 0, 65535);
  p.int(svc.localReadyEndpoints, 'localReadyEndpoints', 0, Number.MAX_SAFE_INTEGER);
  if (svc.preserveDestination !== undefined && svc.preserveDestination !== true)
    p.add('preserveDestination', 'must be true or absent');
  if (p.list(svc.ports, 'ports')) {
    svc.ports.forEach((port, i) => {
      const at = `ports[${i}]`;
      p.servicePort(port, at);
      if (port.key !== `${svc.key}:${port.name}/${port.protocol}`)
        p.add(`${at}.key`, 'must be namespace/name:port/protocol');
      for (const [family, endpoints] of Object.entries(port.endpoints)) {
        if (!FAMILIES.includes(family) || svc.families[family as IPFamily] === undefined)
          p.add(`${at}.endpoints`, `endpoints of a family the Service has no ClusterIP in: ${describe(family)}`);
        else if (endpoints) familyEndpointProblems(p, endpoints, `${at}.endpoints.${family}`, family as IPFamily);
      }
    });
  }
  return p.found;
}

/** Why the node of a node-local state is not one core could have built; empty when it is. */
export function localNodeProblems(node: LocalNode): readonly string[] {
  const p = new Problems();
  // An empty name: the state of a node core does not know yet.
  p.optionalName(node.name, 'name', 'subdomain');
  p.labels(node.labels, 'labels');
  if (node.zone !== undefined) p.text(node.zone, 'zone');
  p.cidrs(node.podCIDRs, 'podCIDRs');
  p.ips(node.addresses, 'addresses');
  if (node.serviceCIDRs !== undefined) p.cidrs(node.serviceCIDRs, 'serviceCIDRs');
  return p.found;
}

/** What a state's check found: the kind and name of each object refused, with its problems. */
export interface Refusal {
  readonly kind: 'Service' | 'Node' | 'Pod' | 'NetworkPolicy';
  readonly where: string;
  readonly problems: readonly string[];
}

/**
 * Checks a node-local state, skipping objects in `checked` (a decoded state reuses unchanged
 * Services, so a state costs the changed ones only) and adding the ones that pass.
 */
export function localStateRefusals(state: NodeLocalState, checked?: WeakSet<object>): readonly Refusal[] {
  const refusals: Refusal[] = [];
  if (!checked?.has(state.node)) {
    const problems = localNodeProblems(state.node);
    if (problems.length > 0) refusals.push({ kind: 'Node', where: state.node.name || '(unnamed)', problems });
    else checked?.add(state.node);
  }
  if (state.services.length > OBJECT_LIMITS.listEntries) {
    refusals.push({
      kind: 'Service',
      where: '(state)',
      problems: [`must have at most ${OBJECT_LIMITS.listEntries} Services, got ${state.services.length}`],
    });
    return refusals;
  }
  for (const svc of state.services) {
    if (checked?.has(svc)) continue;
    const problems = localServiceProblems(svc);
    if (problems.length > 0) refusals.push({ kind: 'Service', where: String(svc.key), problems });
    else checked?.add(svc);
  }
  // The policy view (its pods and peer groups reach nft's input): src/policy/check.ts.
  if (state.policy !== undefined) refusals.push(...policyStateRefusals(state.policy, checked));
  return refusals;
}
