/**
 * The reference ruleset: an approximation of kube-proxy's nftables structure for the state's IPv4
 * ClusterIPs only (a chain per service port with `numgen random mod N vmap` to a chain per endpoint
 * doing mark + DNAT, dispatched by one verdict map; no NodePorts, load balancers, firewall, affinity
 * or IPv6, so it is smaller than what kube-proxy would write), as one nft script. Measured in the same run as kpng's shape, for the ratio
 * PERFORMANCE.md asks for.
 */
import type { NodeLocalState } from '@kpng/core';

export function kubeProxyShape(state: NodeLocalState, table = 'kube-proxy-ref'): string {
  const out = [
    `add table ip ${table}`,
    `add map ip ${table} service-ips { type ipv4_addr . inet_proto . inet_service : verdict ; }`,
    `add chain ip ${table} mark-for-masquerade`,
    `add rule ip ${table} mark-for-masquerade meta mark set meta mark or 0x4000`,
    `add chain ip ${table} services`,
    `add chain ip ${table} nat-prerouting { type nat hook prerouting priority -100 ; policy accept ; }`,
    `add rule ip ${table} nat-prerouting jump services`,
    `add rule ip ${table} services ip daddr . meta l4proto . th dport vmap @service-ips`,
  ];
  let n = 0;
  for (const svc of state.services) {
    const cip = svc.families.IPv4?.clusterIP;
    for (const port of svc.ports) {
      const eps = port.endpoints.IPv4?.internal ?? [];
      if (cip === undefined || eps.length === 0) continue;
      const proto = port.protocol.toLowerCase();
      const chain = `service-${n++}-${svc.namespace}/${svc.name}/${proto}/${port.port}`;
      out.push(`add chain ip ${table} ${chain}`);
      const targets = eps.map((ep, i) => {
        const epChain = `endpoint-${n}-${i}-${svc.namespace}/${svc.name}__${ep.ip}/${ep.port}`;
        out.push(`add chain ip ${table} ${epChain}`);
        out.push(`add rule ip ${table} ${epChain} ip saddr ${ep.ip} jump mark-for-masquerade`);
        out.push(`add rule ip ${table} ${epChain} meta l4proto ${proto} dnat to ${ep.ip}:${ep.port}`);
        return `${i} : goto ${epChain}`;
      });
      out.push(`add rule ip ${table} ${chain} numgen random mod ${eps.length} vmap { ${targets.join(', ')} }`);
      out.push(`add element ip ${table} service-ips { ${cip} . ${proto} . ${port.port} : goto ${chain} }`);
    }
  }
  return `${out.join('\n')}\n`;
}
