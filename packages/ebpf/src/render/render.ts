/**
 * A Service's entries in the BPF maps, rendered from core's node-local view: core has already
 * applied the traffic policies, topology and the terminating fallback; this picks the list each
 * address uses, exactly as the nft backend does, and never re-derives policy.
 *
 *   ClusterIP:port           -> the `internal` list (internalTrafficPolicy applied)
 *   external IP, LB IP:port  -> reached from this node (its pods, its own processes): the `cluster`
 *                               list when externalTrafficPolicy is Local (upstream's short-circuit
 *                               for local traffic), else `external`; not the LB IPs of a Service
 *                               with loadBalancerSourceRanges (the source is unknown at connect())
 *
 * Each (service port, family, scope) is one "lb": an id, its endpoint list, its frontends (the
 * service map keys that point at it). No endpoint anywhere: REJECT; endpoints but none in the
 * list: UNREACHABLE.
 */
import type { FamilyEndpoints, IPFamily, LocalEndpoint, LocalService, LocalServicePort } from '@kpng/core';
import { endpointValue, LB_REJECT, LB_UNREACHABLE, serviceKey, serviceMapOf } from '../maps/layout.js';

export type Scope = 'internal' | 'external';

export interface RenderedLb {
  /** `<service port key>|<family>|<scope>`: stable across syncs, the id allocator's key. */
  readonly key: string;
  readonly family: IPFamily;
  readonly map: 'services4' | 'services6';
  /** The service map keys (hex) of this lb's addresses. */
  readonly frontends: readonly string[];
  /** Endpoint values (hex), in core's order (index = position). */
  readonly endpoints: readonly string[];
  readonly affinitySeconds: number;
  readonly flags: number;
}

export interface RenderProblem {
  readonly service: string;
  readonly reason: string;
}

/** The protocols a socket hook sees: SCTP Services are left alone (no SCTP socket LB). */
const SOCKET_PROTOCOLS = new Set(['TCP', 'UDP']);

export function renderService(
  service: LocalService,
  families: readonly IPFamily[],
  problems: RenderProblem[] = [],
): RenderedLb[] {
  const lbs: RenderedLb[] = [];
  const affinitySeconds = service.sessionAffinity.type === 'ClientIP' ? service.sessionAffinity.timeoutSeconds : 0;
  for (const family of families) {
    const addresses = service.families[family];
    if (addresses === undefined) continue;
    for (const port of service.ports) {
      if (!SOCKET_PROTOCOLS.has(port.protocol)) continue;
      const eps = port.endpoints[family];
      if (eps === undefined) continue;
      const lb = (scope: Scope, ips: readonly string[], list: readonly LocalEndpoint[]): void => {
        if (ips.length === 0) return;
        try {
          lbs.push(render(port, family, scope, ips, list, eps, affinitySeconds));
        } catch (e) {
          problems.push({ service: service.key, reason: (e as Error).message });
        }
      };
      if (addresses.clusterIP !== '' && addresses.clusterIP !== 'None')
        lb('internal', [addresses.clusterIP], eps.internal);
      // LB IPs guarded by loadBalancerSourceRanges are left to the packet path: a connect() hook
      // does not know the source address yet, so it could not apply the ranges.
      const guarded = addresses.loadBalancerSourceRanges.length > 0;
      lb(
        'external',
        [...addresses.externalIPs, ...(guarded ? [] : addresses.loadBalancerIPs)],
        eps.externalPolicyLocal ? eps.cluster : eps.external,
      );
    }
  }
  return lbs;
}

function render(
  port: LocalServicePort,
  family: IPFamily,
  scope: Scope,
  ips: readonly string[],
  list: readonly LocalEndpoint[],
  eps: FamilyEndpoints,
  affinitySeconds: number,
): RenderedLb {
  const flags = !eps.hasAnyEndpoints ? LB_REJECT : list.length === 0 ? LB_UNREACHABLE : 0;
  return {
    key: `${port.key}|${family}|${scope}`,
    family,
    map: serviceMapOf(family),
    frontends: [...new Set(ips.map((ip) => serviceKey(family, ip, port.port, port.protocol).toString('hex')))],
    endpoints: flags === 0 ? list.map((ep) => endpointValue(family, ep.ip, ep.port).toString('hex')) : [],
    affinitySeconds,
    flags,
  };
}
