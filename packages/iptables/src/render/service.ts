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
import {
  CHAIN,
  endpointChain,
  endpointString,
  NFACCT_LOCALHOST_NODEPORTS,
  servicePortChains,
  servicePortName,
} from './names.js';
import { localhostNodePorts } from './skeleton.js';
import { LineSink, ServiceText, type RuleSink } from './sink.js';
import type { RenderedService } from './types.js';

/** The Service's lines per table and chain (the readable form; the backend renders `renderServiceText`). */
export function renderService(svc: LocalService, ctx: RenderContext): RenderedService {
  const sink = new LineSink();
  renderInto(sink, svc, ctx);
  return sink.rendered;
}

/** The Service's lines as restore text. */
export function renderServiceText(svc: LocalService, ctx: RenderContext): ServiceText {
  const sink = new ServiceText();
  renderInto(sink, svc, ctx);
  return sink;
}

function renderInto(out: RuleSink, svc: LocalService, ctx: RenderContext): void {
  const addresses = svc.families[ctx.family];
  if (addresses === undefined) return;
  for (const port of svc.ports) renderPort(out, svc, port, ctx);
  if (svc.healthCheckNodePort !== 0) {
    out.filter(
      `-A ${CHAIN.nodePorts} ${comment(`${svc.namespace}/${svc.name} health check node port`)} -m tcp -p tcp --dport ${svc.healthCheckNodePort} -j ACCEPT`,
    );
  }
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
  let text = PROBABILITIES[n];
  if (text === undefined) PROBABILITIES[n] = text = (1 / n).toFixed(10);
  return text;
}

/** `probability(n)` by n: every spread of n endpoints prints the same n-1 of them. */
const PROBABILITIES: string[] = [];

function renderPort(out: RuleSink, svc: LocalService, port: LocalServicePort, ctx: RenderContext): void {
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
  // Core decides per service port and family (a port without a NodePort, in a family without
  // external or LB IPs, has no external path); nothing here re-derives it.
  const externallyAccessible = eps.externallyAccessible;
  const externalLocal = eps.externalPolicyLocal;
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
  if (hasInternal) out.nat(`-A ${CHAIN.services} ${comment(`${name} cluster IP`)} ${cip} -j ${internalChain}`);
  else out.filter(`-A ${CHAIN.services} ${refuse} ${cip} -j ${filterTarget}`);

  // External IPs, then LB IPs: to KUBE-EXT (or KUBE-FW), else REJECT/DROP in the filter table.
  for (const ip of addresses.externalIPs) {
    const dst = `${match} -d ${ip} --dport ${port.port}`;
    if (hasEndpoints) out.nat(`-A ${CHAIN.services} ${comment(`${name} external IP`)} ${dst} -j ${chains.external}`);
    if (!hasExternal) out.filter(`-A ${CHAIN.externalServices} ${refuse} ${dst} -j ${filterTarget}`);
  }
  for (const ip of lbIPs) {
    const dst = `${match} -d ${ip} --dport ${port.port}`;
    if (hasEndpoints) out.nat(`-A ${CHAIN.services} ${comment(`${name} loadbalancer IP`)} ${dst} -j ${lbTarget}`);
    if (usesFirewall)
      out.filter(
        `-A ${CHAIN.proxyFirewall} ${comment(`${name} traffic not accepted by ${chains.firewall}`)} ${dst} -j DROP`,
      );
  }
  if (!hasExternal) {
    for (const ip of lbIPs) {
      out.filter(`-A ${CHAIN.externalServices} ${refuse} ${match} -d ${ip} --dport ${port.port} -j ${filterTarget}`);
    }
  }

  // NodePorts (loadBalancerSourceRanges never apply to them).
  if (port.nodePort !== 0) {
    // Upstream counts IPv4 localhost NodePort packets first, in a rule of the same target.
    if (hasEndpoints && localhostNodePorts(ctx) && ctx.nfacct.has(NFACCT_LOCALHOST_NODEPORTS))
      out.nat(
        `-A ${CHAIN.nodePorts} ${comment(name)} ${match} -d 127.0.0.0/8 --dport ${port.nodePort} -m nfacct --nfacct-name ${NFACCT_LOCALHOST_NODEPORTS} -j ${chains.external}`,
      );
    if (hasEndpoints)
      out.nat(`-A ${CHAIN.nodePorts} ${comment(name)} ${match} --dport ${port.nodePort} -j ${chains.external}`);
    if (!hasExternal) {
      out.filter(
        `-A ${CHAIN.externalServices} ${refuse} -m addrtype --dst-type LOCAL ${match} --dport ${port.nodePort} -j ${filterTarget}`,
      );
    }
  }

  // Internal traffic: masquerade off-cluster (or all) ClusterIP traffic, in the internal policy chain.
  if (hasInternal) {
    const masq = ctx.config.masqueradeAll ? '' : ctx.detector !== undefined ? ` ${ctx.detector.notLocal}` : undefined;
    if (masq !== undefined)
      out.rule(
        internalChain,
        `-A ${internalChain} ${comment(`${name} cluster IP`)} ${cip}${masq} -j ${CHAIN.markMasq}`,
      );
  }

  if (usesExternalChain) {
    const ext = (line: string): void => out.rule(chains.external, line);
    if (!externalLocal) {
      ext(
        `-A ${chains.external} ${comment(`masquerade traffic for ${name} external destinations`)} -j ${CHAIN.markMasq}`,
      );
    } else {
      // Local pods and the node itself bypass the Local policy (as if they went out and back in).
      if (ctx.detector !== undefined) {
        ext(
          `-A ${chains.external} ${comment(`pod traffic for ${name} external destinations`)} ${ctx.detector.local} -j ${chains.cluster}`,
        );
      }
      ext(
        `-A ${chains.external} ${comment(`masquerade LOCAL traffic for ${name} external destinations`)} -m addrtype --src-type LOCAL -j ${CHAIN.markMasq}`,
      );
      ext(
        `-A ${chains.external} ${comment(`route LOCAL traffic for ${name} external destinations`)} -m addrtype --src-type LOCAL -j ${chains.cluster}`,
      );
    }
    if (hasExternal) ext(`-A ${chains.external} -j ${externalPolicyChain}`);
  }

  if (usesFirewall) {
    const fw = (line: string): void => out.rule(chains.firewall, line);
    const head = `-A ${chains.firewall} ${comment(`${name} loadbalancer IP`)}`;
    for (const range of ranges) fw(`${head} -s ${range} -j ${chains.external}`);
    // A VIP bound on this node loops back with the VIP as source: allow it when the node may connect.
    if (nodeIPIn(ctx, ranges)) for (const ip of lbIPs) fw(`${head} -s ${ip} -j ${chains.external}`);
    // Anything else reaches KUBE-PROXY-FIREWALL un-DNATed and is dropped there.
  }

  const affinity = svc.sessionAffinity.type === 'ClientIP' ? svc.sessionAffinity.timeoutSeconds : undefined;
  // One SHA-256 per endpoint: its chain name is needed by the spreading rules and its own chain.
  // The spreads are usually the very list of reachable endpoints: names by index, no lookup.
  const reachable = eps.allReachable;
  const seps = reachable.map((ep) => endpointChain(name, port, ep));
  let byEndpoint: Map<LocalEndpoint, string> | undefined;
  const sepAt = (endpoints: readonly LocalEndpoint[], i: number): string => {
    if (endpoints === reachable) return seps[i] as string;
    const ep = endpoints[i] as LocalEndpoint;
    byEndpoint ??= new Map(reachable.map((e, j) => [e, seps[j] as string]));
    let sep = byEndpoint.get(ep);
    if (sep === undefined) byEndpoint.set(ep, (sep = endpointChain(name, port, ep)));
    return sep;
  };
  const spread = (chainName: string, endpoints: readonly LocalEndpoint[]): void => {
    const epComment = (ep: LocalEndpoint): string =>
      ctx.terse ? '' : ` ${comment(`${name} -> ${endpointString(ep)}`)}`;
    if (affinity !== undefined) {
      for (let i = 0; i < endpoints.length; i++) {
        const ep = endpoints[i] as LocalEndpoint;
        const sep = sepAt(endpoints, i);
        out.rule(
          chainName,
          `-A ${chainName}${epComment(ep)} -m recent --name ${sep} --rcheck --seconds ${affinity} --reap -j ${sep}`,
        );
      }
    }
    const last = endpoints.length - 1;
    for (let i = 0; i <= last; i++) {
      const ep = endpoints[i] as LocalEndpoint;
      const pick = i < last ? ` -m statistic --mode random --probability ${probability(endpoints.length - i)}` : '';
      out.rule(chainName, `-A ${chainName}${epComment(ep)}${pick} -j ${sepAt(endpoints, i)}`);
    }
  };
  if (eps.cluster.length > 0) spread(chains.cluster, eps.cluster);
  if (eps.local.length > 0) spread(chains.local, eps.local);

  const sepComment = ctx.terse ? '' : ` ${comment(name)}`;
  const record = affinity !== undefined;
  for (let i = 0; i < reachable.length; i++) {
    const ep = reachable[i] as LocalEndpoint;
    const sep = seps[i] as string;
    const head = `-A ${sep}${sepComment}`;
    out.rule(sep, `${head} -s ${ep.ip} -j ${CHAIN.markMasq}`);
    out.rule(
      sep,
      `${head}${record ? ` -m recent --name ${sep} --set` : ''} ${match} -j DNAT --to-destination ${endpointString(ep)}`,
    );
  }
}
