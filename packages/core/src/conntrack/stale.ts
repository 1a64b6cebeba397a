/**
 * Which UDP flows are stale after a sync (semantics 4.1): for each UDP service port with serving
 * endpoints, flows addressed to its service IPs or its NodePort whose reply does not come from a
 * serving endpoint. Traffic policy, topology and terminating state are deliberately ignored.
 */
import type { IPFamily } from '../model/types.js';
import type { LocalService } from '../nodeview/types.js';
import type { Flow } from './entries.js';

export interface StaleTargets {
  /** `ip|port` of service addresses -> serving `ip:port`s. */
  readonly byAddress: Map<string, ReadonlySet<string>>;
  /** NodePort -> serving `ip:port`s (any local destination address). */
  readonly byNodePort: Map<number, ReadonlySet<string>>;
}

export function staleTargets(services: Iterable<LocalService>, family: IPFamily): StaleTargets {
  const byAddress = new Map<string, ReadonlySet<string>>();
  const byNodePort = new Map<number, ReadonlySet<string>>();
  for (const svc of services) {
    const addresses = svc.families[family];
    if (addresses === undefined) continue;
    for (const port of svc.ports) {
      const eps = port.endpoints[family];
      if (port.protocol !== 'UDP' || eps === undefined || eps.serving.length === 0) continue;
      const serving = new Set(eps.serving.map((ep) => `${ep.ip}:${ep.port}`));
      for (const ip of [addresses.clusterIP, ...addresses.externalIPs, ...addresses.loadBalancerIPs]) {
        byAddress.set(`${ip}|${port.port}`, serving);
      }
      if (port.nodePort > 0) byNodePort.set(port.nodePort, serving);
    }
  }
  return { byAddress, byNodePort };
}

/** @param isNodePortAddress whether a destination is an address NodePorts are served on. */
export function isStale(flow: Flow, targets: StaleTargets, isNodePortAddress: (ip: string) => boolean): boolean {
  if (flow.proto !== 'udp') return false;
  const reply = `${flow.replySrc}:${flow.replySport}`;
  const serving = targets.byAddress.get(`${flow.origDst}|${flow.origDport}`);
  if (serving !== undefined) return !serving.has(reply);
  const viaNodePort = isNodePortAddress(flow.origDst) ? targets.byNodePort.get(flow.origDport) : undefined;
  return viaNodePort !== undefined && !viaNodePort.has(reply);
}
