import type { IPFamily, ServiceKey } from '../model/types.js';
import { findService } from '../nodeview/find-service.js';
import type { LocalService, NodeLocalState } from '../nodeview/types.js';

export interface NoLocalEndpointsCount {
  readonly internal: number;
  readonly external: number;
}

const FAMILIES: readonly IPFamily[] = ['IPv4', 'IPv6'];
const NONE: NoLocalEndpointsCount = { internal: 0, external: 0 };

/**
 * The value of `kubeproxy_sync_proxy_rules_no_local_endpoints_total` for one family: service ports
 * whose traffic policy is Local and whose traffic is therefore dropped here, because endpoints
 * exist but none on this node. Ports with no endpoints at all are rejected, not dropped, and are
 * not counted. Counted per service port, as upstream's proxiers do in their per-port loop.
 */
export function countNoLocalEndpoints(state: NodeLocalState, family: IPFamily): NoLocalEndpointsCount {
  let internal = 0;
  let external = 0;
  for (const svc of state.services) {
    const count = serviceNoLocalEndpoints(svc, family);
    internal += count.internal;
    external += count.external;
  }
  return { internal, external };
}

/** One Service's share of `countNoLocalEndpoints`. */
function serviceNoLocalEndpoints(svc: LocalService, family: IPFamily): NoLocalEndpointsCount {
  if (!svc.internalPolicyLocal && !svc.externalPolicyLocal) return NONE;
  let ports = 0;
  for (const port of svc.ports) {
    const endpoints = port.endpoints[family];
    if (endpoints?.hasAnyEndpoints === true && endpoints.local.length === 0) ports++;
  }
  if (ports === 0) return NONE;
  return { internal: svc.internalPolicyLocal ? ports : 0, external: svc.externalPolicyLocal ? ports : 0 };
}

/**
 * `countNoLocalEndpoints` kept up to date from the Services that changed, so a sync after one
 * endpoint change costs that Service, not a walk of every Service (docs/PERFORMANCE.md). Each
 * Service's non-zero share is remembered, to be taken back when it changes or goes.
 */
export class NoLocalEndpointsCounter {
  readonly #shares = new Map<ServiceKey, Partial<Record<IPFamily, NoLocalEndpointsCount>>>();
  readonly #totals = new Map<IPFamily, { internal: number; external: number }>(
    FAMILIES.map((f) => [f, { internal: 0, external: 0 }]),
  );
  #counted = false;

  /**
   * Brings the counts to `state`. `updated`: the Services whose local form changed since the state
   * of the previous update; undefined when unknown (a full sync): everything is counted again.
   */
  update(state: NodeLocalState, updated: ReadonlySet<ServiceKey> | undefined): void {
    if (updated === undefined || !this.#counted) {
      this.#shares.clear();
      for (const total of this.#totals.values()) total.internal = total.external = 0;
      for (const svc of state.services) this.#add(svc);
      this.#counted = true;
      return;
    }
    for (const key of updated) {
      this.#remove(key);
      const svc = findService(state.services, key);
      if (svc !== undefined) this.#add(svc);
    }
  }

  count(family: IPFamily): NoLocalEndpointsCount {
    const total = this.#totals.get(family);
    return total === undefined ? NONE : { internal: total.internal, external: total.external };
  }

  #add(svc: LocalService): void {
    if (!svc.internalPolicyLocal && !svc.externalPolicyLocal) return;
    let share: Partial<Record<IPFamily, NoLocalEndpointsCount>> | undefined;
    for (const family of FAMILIES) {
      const count = serviceNoLocalEndpoints(svc, family);
      if (count === NONE) continue;
      (share ??= {})[family] = count;
      this.#shift(family, count, 1);
    }
    if (share !== undefined) this.#shares.set(svc.key, share);
  }

  #remove(key: ServiceKey): void {
    const share = this.#shares.get(key);
    if (share === undefined) return;
    this.#shares.delete(key);
    for (const family of FAMILIES) {
      const count = share[family];
      if (count !== undefined) this.#shift(family, count, -1);
    }
  }

  #shift(family: IPFamily, count: NoLocalEndpointsCount, sign: 1 | -1): void {
    const total = this.#totals.get(family) as { internal: number; external: number };
    total.internal += sign * count.internal;
    total.external += sign * count.external;
  }
}
