/**
 * Diff: the rendered load balancers and endpoints against the mirror of HNS, as an ordered list of
 * HNS operations: delete the load balancers that changed or went away, delete the remote endpoints
 * nothing uses any more, create the endpoints that are missing, create the load balancers. A load
 * balancer whose settings are unchanged is not touched; one endpoint change rewrites only the load
 * balancers of that service port that list it.
 */
import { canonicalIP, type ServiceKey } from '@kpng/core';
import { EndpointFlags, SCHEMA_V2, endpointJson, type HostComputeLoadBalancer } from '../hcn/schema.js';
import type { LoadBalancerIntent, RemoteEndpointIntent, ServiceRender } from '../render/intents.js';
import { normalizeLoadBalancer, type AppliedEndpoint, type AppliedLoadBalancer, type HnsMirror } from './mirror.js';

/** A reference to an endpoint this plan creates, resolved to its HNS ID when it has been. */
export const placeholder = (ip: string): string => `new:${ip}`;

export type HnsOperation =
  | { readonly kind: 'deleteLoadBalancer'; readonly lb: AppliedLoadBalancer }
  | { readonly kind: 'deleteEndpoint'; readonly endpoint: AppliedEndpoint }
  | { readonly kind: 'createEndpoint'; readonly ip: string; readonly settings: string }
  | {
      readonly kind: 'createLoadBalancer';
      readonly key: string;
      readonly service: ServiceKey;
      readonly doc: HostComputeLoadBalancer;
    };

export interface SyncPlan {
  readonly operations: readonly HnsOperation[];
  /** Load balancers left as they are, claimed for their Service (found in HNS on a full sync). */
  readonly claims: ReadonlyMap<string, ServiceKey>;
  /** Endpoints of this node that HNS does not have yet (the CNI plugin has not created them): left out for now. */
  readonly missingLocal: number;
  /** Load balancers that another Service already renders under the same HNS key: left out. */
  readonly conflicts: number;
  readonly loadBalancers: number;
}

export interface PlanInput {
  readonly mirror: HnsMirror;
  /** The rendered Services this sync looks at (all of them on a full sync). */
  readonly renders: ReadonlyMap<ServiceKey, ServiceRender>;
  /** A full sync looks at every load balancer; a partial one only at those of `scope`. */
  readonly full: boolean;
  /** Partial syncs: the Services that changed (deleted ones included). */
  readonly scope?: ReadonlySet<ServiceKey>;
  readonly networkId: string;
  /** Overlay: remote endpoints every ClusterIP of the state needs, whether re-rendered or not. */
  readonly keepRemote: ReadonlyMap<string, RemoteEndpointIntent>;
  /** Overlay: this node's source VIP endpoint, created when HNS lacks it. */
  readonly sourceVipEndpoint?: RemoteEndpointIntent;
}

export function planSync(input: PlanInput): SyncPlan {
  const { mirror, renders, full } = input;
  const inScope = (service: ServiceKey) => full || (input.scope?.has(service) ?? renders.has(service));
  const desired = new Map<string, LoadBalancerIntent>();
  const remoteIntents = new Map<string, RemoteEndpointIntent>(input.keepRemote);
  let conflicts = 0;
  for (const [service, render] of renders) {
    for (const r of render.remoteEndpoints) remoteIntents.set(canonicalIP(r.ip) ?? r.ip, r);
    for (const intent of render.loadBalancers) {
      const owner = mirror.loadBalancers.get(intent.key)?.service;
      const taken = desired.has(intent.key) || (!full && owner !== undefined && owner !== service && !inScope(owner));
      if (taken) {
        if (desired.get(intent.key)?.service !== service) conflicts++;
        continue;
      }
      desired.set(intent.key, intent);
    }
  }

  // Endpoint references: an endpoint HNS has (a pod of this node, or a matching remote one), or one to create.
  const toCreate = new Map<string, RemoteEndpointIntent>();
  const replaced = new Set<string>();
  let missingLocal = 0;
  const resolve = (ip: string, local: boolean): string | undefined => {
    const canonical = canonicalIP(ip) ?? ip;
    const existing = mirror.endpointByIp(canonical);
    const intent = remoteIntents.get(canonical);
    if (existing !== undefined && (!existing.remote || intent === undefined || !full || sameRemote(existing, intent)))
      return existing.id;
    if (existing !== undefined) replaced.add(existing.id);
    if (local || intent === undefined) {
      missingLocal++;
      return undefined;
    }
    toCreate.set(canonical, intent);
    return placeholder(canonical);
  };

  const operations: HnsOperation[] = [];
  const creates: HnsOperation[] = [];
  const claims = new Map<string, ServiceKey>();
  const kept = new Set<string>();
  for (const intent of desired.values()) {
    const ids = intent.endpoints
      .map((ref) => ('id' in ref ? ref.id : resolve(ref.ip, ref.local)))
      .filter((id) => id !== undefined);
    if (ids.length === 0) continue;
    const doc = loadBalancerDoc(intent, ids);
    const current = mirror.loadBalancers.get(intent.key);
    if (
      current !== undefined &&
      current.normalized === normalizeLoadBalancer(doc) &&
      !current.endpointIds.some((id) => replaced.has(id))
    ) {
      kept.add(intent.key);
      if (current.service !== intent.service) claims.set(intent.key, intent.service);
      continue;
    }
    creates.push({ kind: 'createLoadBalancer', key: intent.key, service: intent.service, doc });
  }

  // Load balancers to delete: replaced ones, and those of looked-at Services (all, on a full sync) no longer desired.
  const deleted: AppliedLoadBalancer[] = [];
  const lookedAt = full
    ? mirror.loadBalancers.values()
    : [...(input.scope ?? renders.keys())].flatMap((s) => mirror.loadBalancersOf(s));
  const deletedKeys = new Set<string>();
  const drop = (lb: AppliedLoadBalancer) => {
    if (kept.has(lb.key) || deletedKeys.has(lb.key)) return;
    deletedKeys.add(lb.key);
    deleted.push(lb);
  };
  for (const lb of lookedAt) drop(lb);
  // A desired frontend HNS holds under no owner in scope (found unclaimed): replaced too.
  for (const op of creates) {
    const lb = op.kind === 'createLoadBalancer' ? mirror.loadBalancers.get(op.key) : undefined;
    if (lb !== undefined) drop(lb);
  }
  for (const lb of deleted) operations.push({ kind: 'deleteLoadBalancer', lb });
  if (full) for (const lb of mirror.duplicates) operations.push({ kind: 'deleteLoadBalancer', lb });

  // Overlay ClusterIP endpoints: created when missing, replaced when they changed (full syncs).
  for (const [ip, intent] of input.keepRemote) {
    const existing = mirror.endpointByIp(ip);
    if (existing !== undefined && (!existing.remote || !full || sameRemote(existing, intent))) continue;
    if (existing !== undefined) replaced.add(existing.id);
    toCreate.set(ip, intent);
  }
  // Remote endpoints no load balancer lists after this sync (or that changed), deleted after their
  // load balancers. Only endpoints this sync touched can become unused (all of them on a full sync).
  const delta = new Map<string, number>();
  for (const lb of deleted) for (const id of lb.endpointIds) delta.set(id, (delta.get(id) ?? 0) - 1);
  for (const op of creates)
    if (op.kind === 'createLoadBalancer')
      for (const id of op.doc.HostComputeEndpoints ?? []) delta.set(id, (delta.get(id) ?? 0) + 1);
  const candidates = full
    ? [...mirror.endpoints.keys()]
    : [...new Set([...delta.keys(), ...replaced, ...mirror.unlistedRemoteEndpoints()])];
  for (const id of candidates) {
    const ep = mirror.endpoints.get(id);
    if (ep === undefined || !ep.remote) continue;
    const unused = mirror.references(id) + (delta.get(id) ?? 0) <= 0 && !ep.ips.some((ip) => input.keepRemote.has(ip));
    if (replaced.has(id) || unused) operations.push({ kind: 'deleteEndpoint', endpoint: ep });
  }
  for (const intent of toCreate.values()) {
    operations.push({
      kind: 'createEndpoint',
      ip: canonicalIP(intent.ip) ?? intent.ip,
      settings: endpointSettings(intent, input.networkId, true),
    });
  }
  const svip = input.sourceVipEndpoint;
  if (svip !== undefined && mirror.endpointByIp(svip.ip) === undefined) {
    operations.push({
      kind: 'createEndpoint',
      ip: canonicalIP(svip.ip) ?? svip.ip,
      settings: endpointSettings(svip, input.networkId, false),
    });
  }
  operations.push(...creates);
  return { operations, claims, missingLocal, conflicts, loadBalancers: kept.size + creates.length };
}

function sameRemote(ep: AppliedEndpoint, intent: RemoteEndpointIntent): boolean {
  return ep.mac === intent.mac.toLowerCase() && ep.providerAddress === (intent.providerAddress ?? '');
}

export function loadBalancerDoc(intent: LoadBalancerIntent, endpointIds: readonly string[]): HostComputeLoadBalancer {
  return {
    HostComputeEndpoints: endpointIds,
    ...(intent.sourceVip === undefined ? {} : { SourceVIP: intent.sourceVip }),
    FrontendVIPs: intent.vip === undefined ? [] : [intent.vip],
    PortMappings: [
      {
        Protocol: intent.protocol,
        InternalPort: intent.internalPort,
        ExternalPort: intent.externalPort,
        DistributionType: intent.distribution,
        Flags: intent.portFlags,
      },
    ],
    SchemaVersion: SCHEMA_V2,
    Flags: intent.flags,
  };
}

/** A remote endpoint as upstream's `createEndpoint` builds it (hcsshim's `CreateRemoteEndpoint`). */
export function endpointSettings(intent: RemoteEndpointIntent, networkId: string, remote: boolean): string {
  return endpointJson({
    HostComputeNetwork: networkId,
    ...(intent.providerAddress === undefined
      ? {}
      : { Policies: [{ Type: 'ProviderAddress', Settings: { ProviderAddress: intent.providerAddress } }] }),
    IpConfigurations: [{ IpAddress: intent.ip }],
    MacAddress: intent.mac,
    Flags: remote ? EndpointFlags.RemoteEndpoint : EndpointFlags.None,
    SchemaVersion: SCHEMA_V2,
  });
}
