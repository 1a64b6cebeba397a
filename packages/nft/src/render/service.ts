/**
 * One Service's share of a family's table: map and set elements plus the shared chains it uses.
 * It renders core's categorised lists as they are (internal for ClusterIPs, external for
 * NodePorts/external/LB IPs, cluster for externalTrafficPolicy Local short-circuits) and never
 * re-derives policy.
 */
import type { LocalEndpoint, LocalService, LocalServicePort } from '@kpng/core';
import type { RenderContext } from './context.js';
import { clusterEntry, externalEntry, localEntry, MARK } from './entry.js';
import {
  affinityRecordChain,
  CHAIN,
  endpointsMap,
  pickChain,
  SET,
  SHORT_CIRCUIT_OFFSET,
  verdict,
  type AffinityList,
  type Pick,
  type Proto,
  type Target,
} from './names.js';
import { affinityRecord, affinitySelection, pickSelection } from './selection.js';
import type { ServiceSlots } from './slots.js';
import type { ChainSpec, ElementSpec, EndpointListSpec } from './types.js';

export interface ServiceRender {
  readonly elements: readonly ElementSpec[];
  /** The endpoint map elements, as lists. */
  readonly lists: readonly EndpointListSpec[];
  /** Every chain the elements lead to, directly or through other chains; no duplicates. */
  readonly chains: readonly ChainSpec[];
}

export const EMPTY_RENDER: ServiceRender = { elements: [], lists: [], chains: [] };

/** Comments are for humans reading a dump; anything nft could misread is dropped. */
export function elementComment(text: string): string {
  return text.replace(/[^A-Za-z0-9._:/-]/g, '').slice(0, 120);
}

/**
 * Collects one Service's elements and chains. An element may come twice (an address named as
 * external and LB IP, a pod's hairpin entry from two ports): the store and `render` keep one.
 */
class Builder {
  readonly elements: ElementSpec[] = [];
  readonly lists: EndpointListSpec[] = [];
  readonly #chains = new Map<string, ChainSpec>();

  constructor(
    readonly ctx: RenderContext,
    readonly slots: ServiceSlots,
  ) {}

  chain(chain: ChainSpec | undefined): void {
    if (chain !== undefined && !this.#chains.has(chain.name)) this.#chains.set(chain.name, chain);
  }

  element(element: ElementSpec): void {
    this.elements.push(element);
  }

  list(list: EndpointListSpec): void {
    if (list.endpoints.length > 0) this.lists.push(list);
  }

  get chains(): ChainSpec[] {
    return [...this.#chains.values()];
  }
}

export function renderService(svc: LocalService, ctx: RenderContext, slots: ServiceSlots): ServiceRender {
  const addresses = svc.families[ctx.syntax.family];
  if (addresses === undefined) return EMPTY_RENDER;
  const b = new Builder(ctx, slots);
  b.element({ container: SET.clusterIPs, key: [addresses.clusterIP] });
  for (const port of svc.ports) renderPort(b, svc, port);
  return { elements: b.elements, lists: b.lists, chains: b.chains };
}

function renderPort(b: Builder, svc: LocalService, port: LocalServicePort): void {
  const { family } = b.ctx.syntax;
  const eps = port.endpoints[family];
  const addresses = svc.families[family];
  if (eps === undefined || addresses === undefined) return;
  const proto = port.protocol.toLowerCase() as Proto;
  const portText = String(port.port);
  const comment = elementComment(port.key);
  const externalIPs = [...addresses.externalIPs, ...addresses.loadBalancerIPs];
  // North-south only: a TCP or UDP port's ClusterIP keeps its guard entry (renderService) and
  // nothing else (balanced at the socket); SCTP, which socket hooks do not serve, stays here.
  const clusterIPs = b.ctx.config.scope === 'all' || port.protocol === 'SCTP';
  const vips = clusterIPs ? [addresses.clusterIP, ...externalIPs] : externalIPs;

  if (addresses.loadBalancerSourceRanges.length > 0) {
    for (const lb of addresses.loadBalancerIPs) {
      b.element({ container: SET.firewallIPs, key: [lb, proto, portText], comment });
      for (const range of addresses.loadBalancerSourceRanges) {
        b.element({ container: SET.firewallAllow, key: [lb, proto, portText, range] });
      }
    }
  }
  // (Hairpin masquerade follows DNAT here: none for a ClusterIP this table does not balance.)
  if (clusterIPs || eps.externallyAccessible)
    for (const ep of eps.allReachable) if (ep.isLocal) b.element({ container: SET.hairpin, key: [ep.ip, ep.ip] });

  if (!eps.hasAnyEndpoints) {
    const reject = [`goto ${CHAIN.reject}`];
    for (const vip of vips)
      b.element({ container: SET.noEndpointServices, key: [vip, proto, portText], value: reject, comment });
    if (port.nodePort > 0) {
      b.element({ container: SET.noEndpointNodePorts, key: [proto, String(port.nodePort)], value: reject, comment });
    }
    return;
  }

  const sticky =
    svc.sessionAffinity.type === 'ClientIP'
      ? { port: b.slots.portId(port.key), timeout: svc.sessionAffinity.timeoutSeconds }
      : undefined;
  // core lists endpoints distinct by ip:port.
  const list = (name: AffinityList, endpoints: readonly LocalEndpoint[]): readonly LocalEndpoint[] =>
    b.slots.assign(`${port.key}|${family}|${name}`, endpoints);
  /** The chain choosing from `endpoints`; a sticky port's own lookup chain starts with `first`. */
  const pick = (
    endpoints: readonly LocalEndpoint[],
    nodePort: boolean,
    shortCircuit: boolean,
    name: AffinityList,
    first: readonly string[] = [],
  ): Target => {
    if (endpoints.length === 0) return 'drop';
    const p: Pick = { proto, nodePort, shortCircuit, n: endpoints.length };
    b.chain(pickSelection(b.ctx, p));
    if (sticky === undefined) return { chain: pickChain(p) };
    const chain = affinitySelection(b.ctx, p, sticky.port, name, endpoints, first);
    b.chain(chain);
    return { chain: chain.name };
  };
  const endpointElements = (
    address: string,
    port: number,
    endpoints: readonly LocalEndpoint[],
    offset: number,
  ): void => {
    b.list({ container: endpointsMap(proto), address, port, offset, endpoints });
  };
  if (sticky !== undefined) {
    // After DNAT, any address of the port leads to the chain recording the client's endpoint.
    b.chain(affinityRecord(b.ctx, sticky.port, sticky.timeout));
    const record = [`goto ${affinityRecordChain(sticky.port)}`];
    for (const vip of vips)
      b.element({ container: SET.affinityIPs, key: [vip, proto, portText], value: record, comment });
    if (port.nodePort > 0)
      b.element({ container: SET.affinityNodePorts, key: [proto, String(port.nodePort)], value: record, comment });
  }

  // ClusterIP: the internal list (a sticky port's lookup chain does the masquerade marking itself).
  if (clusterIPs) {
    const internal = list('internal', eps.internal);
    const masquerade = b.ctx.clusterMasquerade;
    const internalPick = pick(internal, false, false, 'internal', masquerade === undefined ? [] : [masquerade]);
    let clusterTarget: Target = internalPick;
    if (internalPick !== 'drop' && sticky === undefined) {
      const entry = clusterEntry(b.ctx, internalPick.chain);
      b.chain(entry.chain);
      clusterTarget = entry.target;
    }
    b.element({
      container: SET.serviceIPs,
      key: [addresses.clusterIP, proto, portText],
      value: [verdict(clusterTarget)],
      comment,
    });
    endpointElements(addresses.clusterIP, port.port, internal, 0);
  }

  // Core decides per port and family whether the port is reachable from outside, and under which policy.
  if (!eps.externallyAccessible) return;
  // External addresses and the NodePort: the external list, plus the cluster list for short-circuits.
  const externalLocal = eps.externalPolicyLocal;
  const external = list('external', eps.external);
  const shortCircuit = externalLocal ? list('cluster', eps.cluster) : [];
  const externalTarget = (nodePort: boolean): Target => {
    if (externalLocal) {
      const main = pick(external, nodePort, false, 'external');
      const viaCluster = pick(shortCircuit, nodePort, true, 'cluster');
      if (main === 'drop' && viaCluster === 'drop') return 'drop';
      const entry = localEntry(b.ctx, main, viaCluster);
      b.chain(entry.chain);
      return entry.target;
    }
    const main = pick(external, nodePort, false, 'external', [MARK]);
    if (main === 'drop' || sticky !== undefined) return main;
    const entry = externalEntry(b.ctx, main.chain);
    b.chain(entry.chain);
    return entry.target;
  };
  const addExternal = (key: string, keyPort: number): void => {
    endpointElements(key, keyPort, external, 0);
    if (externalLocal) endpointElements(key, keyPort, shortCircuit, SHORT_CIRCUIT_OFFSET);
  };
  if (externalIPs.length > 0) {
    const value = [verdict(externalTarget(false))];
    for (const vip of externalIPs) {
      b.element({ container: SET.serviceIPs, key: [vip, proto, portText], value, comment });
      addExternal(vip, port.port);
    }
  }
  if (port.nodePort > 0) {
    const value = [verdict(externalTarget(true))];
    b.element({ container: SET.serviceNodePorts, key: [proto, String(port.nodePort)], value, comment });
    addExternal(b.ctx.syntax.anyAddr, port.nodePort);
  }
}
