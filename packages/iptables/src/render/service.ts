/**
 * One Service, one family, upstream's iptables rule shapes (pkg/proxy/iptables/proxier.go):
 * KUBE-SERVICES captures ClusterIP, external and LB IPs; KUBE-NODEPORTS the NodePorts; KUBE-SVC
 * and KUBE-SVL spread over endpoints with `statistic` probabilities, ClientIP affinity with
 * `recent`; KUBE-EXT handles external traffic (masquerade, ETP Local short-circuits); KUBE-FW
 * enforces loadBalancerSourceRanges; KUBE-SEP marks hairpin traffic and DNATs. REJECT (no
 * endpoints) and DROP (no local endpoints) live in the filter table. Endpoint lists come
 * categorised from core: nothing here re-derives traffic policy.
 */
import type { LocalEndpoint, LocalService, LocalServicePort } from '@kpng/core';
import { comment } from './comment.js';
import type { RenderContext } from './context.js';
import { nodeIPIn } from './context.js';
import { CHAIN, endpointChain, endpointString, servicePortChains, servicePortName } from './names.js';
import type { RenderedService } from './types.js';

export function renderService(svc: LocalService, ctx: RenderContext): RenderedService {
  const out = { filter: [] as string[], nat: [] as string[], chains: new Map<string, string[]>() };
  const addresses = svc.families[ctx.family];
  if (addresses === undefined) return out;
  for (const port of svc.ports) renderPort(out, svc, port, ctx);
  if (svc.healthCheckNodePort !== 0) {
    out.filter.push(
      `-A ${CHAIN.nodePorts} ${comment(`${svc.namespace}/${svc.name} health check node port`)} -m tcp -p tcp --dport ${svc.healthCheckNodePort} -j ACCEPT`,
    );
  }
  return out;
}

/**
 * Upstream's plain REJECT answers with ICMP port unreachable. For IPv6 TCP that error did not
 * reach clients in the lab's kernel e2e (they timed out, from pods and from the node itself),
 * where a TCP reset does, as the nft backend sends: "connection refused" either way.
 */
function reject(ctx: RenderContext, port: LocalServicePort): string {
  return ctx.family === 'IPv6' && port.protocol === 'TCP' ? 'REJECT --reject-with tcp-reset' : 'REJECT';
}

/** `1/n` as upstream prints it (`%0.10f`). */
function probability(n: number): string {
  return (1 / n).toFixed(10);
}

function renderPort(
  out: { filter: string[]; nat: string[]; chains: Map<string, string[]> },
  svc: LocalService,
  port: LocalServicePort,
  ctx: RenderContext,
): void {
  const addresses = svc.families[ctx.family];
  const eps = port.endpoints[ctx.family];
  if (addresses === undefined || eps === undefined) return;
  const name = servicePortName(svc, port);
  const chains = servicePortChains(name, port);
  const proto = port.protocol.toLowerCase();
  const match = `-m ${proto} -p ${proto}`;
  const hasEndpoints = eps.hasAnyEndpoints;
  const hasInternal = eps.internal.length > 0;
  const hasExternal = eps.external.length > 0;
  const lbIPs = addresses.loadBalancerIPs;
  // Accessibility is per service port and family (as core categorised `external`): a port without
  // a NodePort, in a family without external or LB IPs, has no external path.
  const externallyAccessible = port.nodePort > 0 || addresses.externalIPs.length > 0 || lbIPs.length > 0;
  const externalLocal = svc.externalPolicyLocal && externallyAccessible;
  const internalChain = svc.internalPolicyLocal ? chains.local : chains.cluster;
  const externalPolicyChain = externalLocal ? chains.local : chains.cluster;
  const usesExternalChain = hasEndpoints && externallyAccessible;
  const ranges = addresses.loadBalancerSourceRanges;
  const usesFirewall = hasEndpoints && lbIPs.length > 0 && ranges.length > 0;
  const lbTarget = usesFirewall ? chains.firewall : chains.external;
  // No endpoints at all: REJECT; endpoints elsewhere but none for this policy: DROP.
  const [filterTarget, filterComment] = hasEndpoints
    ? ['DROP', `${name} has no local endpoints`]
    : [reject(ctx, port), `${name} has no endpoints`];
  const refuse = `${comment(filterComment)}`;

  // Capture the ClusterIP.
  const cip = `${match} -d ${addresses.clusterIP} --dport ${port.port}`;
  if (hasInternal) out.nat.push(`-A ${CHAIN.services} ${comment(`${name} cluster IP`)} ${cip} -j ${internalChain}`);
  else out.filter.push(`-A ${CHAIN.services} ${refuse} ${cip} -j ${filterTarget}`);

  // External IPs, then LB IPs: to KUBE-EXT (or KUBE-FW), else REJECT/DROP in the filter table.
  for (const ip of addresses.externalIPs) {
    const dst = `${match} -d ${ip} --dport ${port.port}`;
    if (hasEndpoints)
      out.nat.push(`-A ${CHAIN.services} ${comment(`${name} external IP`)} ${dst} -j ${chains.external}`);
    if (!hasExternal) out.filter.push(`-A ${CHAIN.externalServices} ${refuse} ${dst} -j ${filterTarget}`);
  }
  for (const ip of lbIPs) {
    const dst = `${match} -d ${ip} --dport ${port.port}`;
    if (hasEndpoints) out.nat.push(`-A ${CHAIN.services} ${comment(`${name} loadbalancer IP`)} ${dst} -j ${lbTarget}`);
    if (usesFirewall)
      out.filter.push(
        `-A ${CHAIN.proxyFirewall} ${comment(`${name} traffic not accepted by ${chains.firewall}`)} ${dst} -j DROP`,
      );
  }
  if (!hasExternal) {
    for (const ip of lbIPs) {
      out.filter.push(
        `-A ${CHAIN.externalServices} ${refuse} ${match} -d ${ip} --dport ${port.port} -j ${filterTarget}`,
      );
    }
  }

  // NodePorts (loadBalancerSourceRanges never apply to them).
  if (port.nodePort !== 0) {
    if (hasEndpoints)
      out.nat.push(`-A ${CHAIN.nodePorts} ${comment(name)} ${match} --dport ${port.nodePort} -j ${chains.external}`);
    if (!hasExternal) {
      out.filter.push(
        `-A ${CHAIN.externalServices} ${refuse} -m addrtype --dst-type LOCAL ${match} --dport ${port.nodePort} -j ${filterTarget}`,
      );
    }
  }

  const chain = (chainName: string): string[] => {
    let rules = out.chains.get(chainName);
    if (rules === undefined) out.chains.set(chainName, (rules = []));
    return rules;
  };

  // Internal traffic: masquerade off-cluster (or all) ClusterIP traffic, in the internal policy chain.
  if (hasInternal) {
    const masq = ctx.config.masqueradeAll ? '' : ctx.detector !== undefined ? ` ${ctx.detector.notLocal}` : undefined;
    if (masq !== undefined)
      chain(internalChain).push(
        `-A ${internalChain} ${comment(`${name} cluster IP`)} ${cip}${masq} -j ${CHAIN.markMasq}`,
      );
  }

  if (usesExternalChain) {
    const ext = chain(chains.external);
    if (!externalLocal) {
      ext.push(
        `-A ${chains.external} ${comment(`masquerade traffic for ${name} external destinations`)} -j ${CHAIN.markMasq}`,
      );
    } else {
      // Local pods and the node itself bypass the Local policy (as if they went out and back in).
      if (ctx.detector !== undefined) {
        ext.push(
          `-A ${chains.external} ${comment(`pod traffic for ${name} external destinations`)} ${ctx.detector.local} -j ${chains.cluster}`,
        );
      }
      ext.push(
        `-A ${chains.external} ${comment(`masquerade LOCAL traffic for ${name} external destinations`)} -m addrtype --src-type LOCAL -j ${CHAIN.markMasq}`,
      );
      ext.push(
        `-A ${chains.external} ${comment(`route LOCAL traffic for ${name} external destinations`)} -m addrtype --src-type LOCAL -j ${chains.cluster}`,
      );
    }
    if (hasExternal) ext.push(`-A ${chains.external} -j ${externalPolicyChain}`);
  }

  if (usesFirewall) {
    const fw = chain(chains.firewall);
    const head = `-A ${chains.firewall} ${comment(`${name} loadbalancer IP`)}`;
    for (const range of ranges) fw.push(`${head} -s ${range} -j ${chains.external}`);
    // A VIP bound on this node loops back with the VIP as source: allow it when the node may connect.
    if (nodeIPIn(ctx, ranges)) for (const ip of lbIPs) fw.push(`${head} -s ${ip} -j ${chains.external}`);
    // Anything else reaches KUBE-PROXY-FIREWALL un-DNATed and is dropped there.
  }

  const affinity = svc.sessionAffinity.type === 'ClientIP' ? svc.sessionAffinity.timeoutSeconds : undefined;
  // One SHA-256 per endpoint: its chain name is needed by the spreading rules and its own chain.
  const sepNames = new Map<LocalEndpoint, string>();
  const sepOf = (ep: LocalEndpoint): string => {
    let sep = sepNames.get(ep);
    if (sep === undefined) sepNames.set(ep, (sep = endpointChain(name, port, ep)));
    return sep;
  };
  const spread = (chainName: string, endpoints: readonly LocalEndpoint[]): void => {
    const rules = chain(chainName);
    const epComment = (ep: LocalEndpoint): string =>
      ctx.terse ? '' : ` ${comment(`${name} -> ${endpointString(ep)}`)}`;
    if (affinity !== undefined) {
      for (const ep of endpoints) {
        const sep = sepOf(ep);
        rules.push(
          `-A ${chainName}${epComment(ep)} -m recent --name ${sep} --rcheck --seconds ${affinity} --reap -j ${sep}`,
        );
      }
    }
    endpoints.forEach((ep, i) => {
      const pick =
        i < endpoints.length - 1
          ? ` -m statistic --mode random --probability ${probability(endpoints.length - i)}`
          : '';
      rules.push(`-A ${chainName}${epComment(ep)}${pick} -j ${sepOf(ep)}`);
    });
  };
  if (eps.cluster.length > 0) spread(chains.cluster, eps.cluster);
  if (eps.local.length > 0) spread(chains.local, eps.local);

  for (const ep of eps.allReachable) {
    const sep = sepOf(ep);
    const head = `-A ${sep}${ctx.terse ? '' : ` ${comment(name)}`}`;
    const rules = chain(sep);
    rules.push(`${head} -s ${ep.ip} -j ${CHAIN.markMasq}`);
    const record = affinity !== undefined ? ` -m recent --name ${sep} --set` : '';
    rules.push(`${head}${record} ${match} -j DNAT --to-destination ${endpointString(ep)}`);
  }
}
