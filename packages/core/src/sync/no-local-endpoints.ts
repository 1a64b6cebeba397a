import type { IPFamily } from '../model/types.js';
import type { NodeLocalState } from '../nodeview/types.js';

export interface NoLocalEndpointsCount {
  readonly internal: number;
  readonly external: number;
}

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
    if (!svc.internalPolicyLocal && !svc.externalPolicyLocal) continue;
    for (const port of svc.ports) {
      const endpoints = port.endpoints[family];
      if (!endpoints?.hasAnyEndpoints || endpoints.local.length > 0) continue;
      if (svc.internalPolicyLocal) internal++;
      if (svc.externalPolicyLocal) external++;
    }
  }
  return { internal, external };
}
