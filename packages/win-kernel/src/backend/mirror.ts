/**
 * What HNS holds, as far as this backend knows: the load balancers by HNS key and the network's
 * endpoints by IP. Filled from HNS on full syncs (so drift is repaired), updated by every applied
 * operation, and diffed against on partial syncs so that they cost no HNS listing.
 */
import { canonicalIP, type ServiceKey } from '@kpng/core';
import { canonicalGuid } from '../hcn/guid.js';
import {
  EndpointFlags,
  LoadBalancerFlags,
  endpointJson,
  loadBalancerJson,
  type HostComputeEndpoint,
  type HostComputeLoadBalancer,
} from '../hcn/schema.js';
import { lbKey } from '../render/intents.js';

export interface AppliedLoadBalancer {
  readonly id: string;
  readonly key: string;
  /** The Service it was created for; undefined for one found in HNS that nothing claimed yet. */
  readonly service: ServiceKey | undefined;
  /** The settings it was created with, without ID (what a rollback recreates). */
  readonly settings: string;
  /** `normalizeLoadBalancer` of it: what a desired load balancer is compared with. */
  readonly normalized: string;
  readonly endpointIds: readonly string[];
}

export interface AppliedEndpoint {
  readonly id: string;
  readonly ips: readonly string[];
  readonly remote: boolean;
  readonly mac: string;
  readonly providerAddress: string;
  /** The settings it was created with (what a rollback recreates). */
  readonly settings: string;
}

/** The fields of a load balancer that decide its behaviour, in one canonical string. */
export function normalizeLoadBalancer(lb: HostComputeLoadBalancer): string {
  const m = lb.PortMappings?.[0] ?? {};
  return loadBalancerJson({
    HostComputeEndpoints: [...(lb.HostComputeEndpoints ?? [])]
      .map((id) => (id.startsWith('new:') ? id : canonicalGuid(id)))
      .sort(),
    ...(lb.SourceVIP ? { SourceVIP: canonicalIP(lb.SourceVIP) ?? lb.SourceVIP } : {}),
    FrontendVIPs: (lb.FrontendVIPs ?? []).map((v) => canonicalIP(v) ?? v),
    PortMappings: [
      {
        Protocol: m.Protocol ?? 0,
        InternalPort: m.InternalPort ?? 0,
        ExternalPort: m.ExternalPort ?? 0,
        DistributionType: m.DistributionType ?? 0,
        Flags: m.Flags ?? 0,
      },
    ],
    Flags: lb.Flags ?? 0,
  });
}

export function keyOf(lb: HostComputeLoadBalancer): string {
  const m = lb.PortMappings?.[0];
  const vip = lb.FrontendVIPs?.[0];
  const family = ((lb.Flags ?? 0) & LoadBalancerFlags.IPv6) !== 0 ? 'IPv6' : 'IPv4';
  return lbKey(
    family,
    vip === undefined ? undefined : (canonicalIP(vip) ?? vip),
    m?.Protocol ?? 0,
    m?.ExternalPort ?? 0,
  );
}

export function appliedEndpoint(ep: HostComputeEndpoint, settings?: string | (() => string)): AppliedEndpoint {
  const pa = ep.Policies?.find((p) => p.Type === 'ProviderAddress')?.Settings as
    { ProviderAddress?: string } | undefined;
  const { ID: _id, ...rest } = ep;
  return {
    id: canonicalGuid(ep.ID ?? ''),
    ips: (ep.IpConfigurations ?? []).map((c) => canonicalIP(c.IpAddress) ?? c.IpAddress),
    remote: ((ep.Flags ?? 0) & EndpointFlags.RemoteEndpoint) !== 0,
    mac: (ep.MacAddress ?? '').toLowerCase(),
    providerAddress: pa?.ProviderAddress ?? '',
    // Only an undo needs the settings of an endpoint found in HNS: written out on demand.
    get settings() {
      return typeof settings === 'function' ? settings() : (settings ?? endpointJson(rest));
    },
  };
}

export function appliedLoadBalancer(
  lb: HostComputeLoadBalancer,
  service: ServiceKey | undefined,
  settings?: string,
): AppliedLoadBalancer {
  const { ID: _id, ...rest } = lb;
  return {
    id: canonicalGuid(lb.ID ?? ''),
    key: keyOf(lb),
    service,
    get settings() {
      return settings ?? loadBalancerJson(rest);
    },
    normalized: normalizeLoadBalancer(lb),
    endpointIds: (lb.HostComputeEndpoints ?? []).map((id) => canonicalGuid(id)),
  };
}

export class HnsMirror {
  readonly #lbs = new Map<string, AppliedLoadBalancer>();
  /** Endpoint ID -> how many load balancers list it; Service -> its load balancers' keys. */
  readonly #refs = new Map<string, number>();
  readonly #byService = new Map<ServiceKey, Set<string>>();
  /** Remote endpoints no load balancer lists (overlay ClusterIP endpoints, or garbage). */
  readonly #unlisted = new Set<string>();
  /** Load balancers HNS holds twice under one key (never created by us): deleted on the next full sync. */
  readonly duplicates: AppliedLoadBalancer[] = [];
  readonly endpoints = new Map<string, AppliedEndpoint>();
  readonly #byIp = new Map<string, Set<string>>();

  static fromHns(
    lbs: readonly HostComputeLoadBalancer[],
    endpoints: readonly HostComputeEndpoint[],
    previous?: HnsMirror,
  ): HnsMirror {
    const mirror = new HnsMirror();
    for (const ep of endpoints) {
      // What we created it with, if we did (HNS answers with more fields than it accepts).
      const before = previous?.endpoints.get(canonicalGuid(ep.ID ?? ''));
      mirror.putEndpoint(appliedEndpoint(ep, before === undefined ? undefined : () => before.settings));
    }
    for (const lb of lbs) {
      const old = previous?.loadBalancers.get(keyOf(lb));
      const applied = appliedLoadBalancer(lb, old?.id === canonicalGuid(lb.ID ?? '') ? old.service : undefined);
      if (mirror.loadBalancers.has(applied.key)) mirror.duplicates.push(applied);
      else mirror.setLoadBalancer(applied);
    }
    return mirror;
  }

  get loadBalancers(): ReadonlyMap<string, AppliedLoadBalancer> {
    return this.#lbs;
  }

  /** Records a load balancer under its key (replacing what was there). */
  setLoadBalancer(lb: AppliedLoadBalancer): void {
    this.deleteLoadBalancer(lb.key);
    this.#lbs.set(lb.key, lb);
    for (const id of lb.endpointIds) {
      this.#refs.set(id, (this.#refs.get(id) ?? 0) + 1);
      this.#unlisted.delete(id);
    }
    if (lb.service !== undefined) {
      const keys = this.#byService.get(lb.service) ?? new Set<string>();
      keys.add(lb.key);
      this.#byService.set(lb.service, keys);
    }
  }

  deleteLoadBalancer(key: string): void {
    const old = this.#lbs.get(key);
    if (old === undefined) return;
    this.#lbs.delete(key);
    for (const id of old.endpointIds) {
      const n = (this.#refs.get(id) ?? 0) - 1;
      if (n > 0) this.#refs.set(id, n);
      else {
        this.#refs.delete(id);
        if (this.endpoints.get(id)?.remote === true) this.#unlisted.add(id);
      }
    }
    if (old.service !== undefined) this.#byService.get(old.service)?.delete(key);
  }

  /** How many load balancers list this endpoint. */
  references(endpointId: string): number {
    return this.#refs.get(endpointId) ?? 0;
  }

  /** Remote endpoints that no load balancer lists. */
  unlistedRemoteEndpoints(): ReadonlySet<string> {
    return this.#unlisted;
  }

  /** The load balancers recorded for a Service. */
  loadBalancersOf(service: ServiceKey): AppliedLoadBalancer[] {
    return [...(this.#byService.get(service) ?? [])].map((key) => this.#lbs.get(key)).filter((lb) => lb !== undefined);
  }

  putEndpoint(ep: AppliedEndpoint): void {
    this.endpoints.set(ep.id, ep);
    if (ep.remote && !this.#refs.has(ep.id)) this.#unlisted.add(ep.id);
    for (const ip of ep.ips) {
      const ids = this.#byIp.get(ip) ?? new Set<string>();
      ids.add(ep.id);
      this.#byIp.set(ip, ids);
    }
  }

  removeEndpoint(id: string): void {
    const ep = this.endpoints.get(id);
    if (ep === undefined) return;
    this.endpoints.delete(id);
    this.#unlisted.delete(id);
    for (const ip of ep.ips) this.#byIp.get(ip)?.delete(id);
  }

  /** The endpoint holding this IP: a local (CNI) one first, as HNS may briefly hold both. */
  endpointByIp(ip: string): AppliedEndpoint | undefined {
    const canonical = canonicalIP(ip) ?? ip;
    let found: AppliedEndpoint | undefined;
    for (const id of this.#byIp.get(canonical) ?? []) {
      const ep = this.endpoints.get(id);
      if (ep === undefined) continue;
      if (!ep.remote) return ep;
      found ??= ep;
    }
    return found;
  }

  clone(): HnsMirror {
    const copy = new HnsMirror();
    for (const lb of this.#lbs.values()) copy.setLoadBalancer(lb);
    for (const ep of this.endpoints.values()) copy.putEndpoint(ep);
    copy.duplicates.push(...this.duplicates);
    return copy;
  }
}
