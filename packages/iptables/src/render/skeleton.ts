/**
 * The fixed part of each family's ruleset, as upstream declares it: the top-level chains (rewritten
 * on every sync), their static rules, the jumps from the built-in chains (ensured on full syncs),
 * the canary chains, and where NodePorts are accepted.
 */
import type { LocalNode } from '@kpng/core';
import { cidrContains, ipFamilyOf, nodePortAddressesFor } from '@kpng/core';
import { comment } from './comment.js';
import type { RenderContext } from './context.js';
import { CHAIN, NFACCT_INVALID_DROPPED } from './names.js';

export type Table = 'filter' | 'nat' | 'mangle';

export interface JumpRule {
  readonly table: Table;
  /** A built-in chain. */
  readonly from: string;
  /** The rule's arguments after the chain (`-m conntrack --ctstate NEW -m comment ... -j KUBE-X`). */
  readonly args: readonly string[];
}

const NEW = ['-m', 'conntrack', '--ctstate', 'NEW'];

function jump(table: Table, from: string, to: string, text: string, extra: readonly string[] = []): JumpRule {
  return { table, from, args: [...extra, '-m', 'comment', '--comment', text, '-j', to] };
}

/** Localhost NodePorts are on: IPv4, the option is set, and 127.0.0.1 is among the NodePort addresses. */
/** Needs only the configuration and the family (the backend asks before it has a node). */
export function localhostNodePorts(ctx: Pick<RenderContext, 'config' | 'family'>): boolean {
  const npa = ctx.config.nodePortAddresses;
  if (ctx.family !== 'IPv4' || !ctx.config.localhostNodePorts || npa === 'primary') return false;
  return matchAll(ctx) !== undefined || npa.some((cidr) => cidrContains(cidr, '127.0.0.1'));
}

/** upstream's iptablesJumpChains (plus KUBE-FIREWALL for localhost NodePorts). */
export function jumpRules(ctx: RenderContext): JumpRule[] {
  const rules = [
    jump('filter', 'INPUT', CHAIN.externalServices, 'kubernetes externally-visible service portals', NEW),
    jump('filter', 'FORWARD', CHAIN.externalServices, 'kubernetes externally-visible service portals', NEW),
    jump('filter', 'INPUT', CHAIN.nodePorts, 'kubernetes health check service ports'),
    jump('filter', 'FORWARD', CHAIN.services, 'kubernetes service portals', NEW),
    jump('filter', 'OUTPUT', CHAIN.services, 'kubernetes service portals', NEW),
    jump('filter', 'FORWARD', CHAIN.forward, 'kubernetes forwarding rules'),
    jump('filter', 'INPUT', CHAIN.proxyFirewall, 'kubernetes load balancer firewall', NEW),
    jump('filter', 'OUTPUT', CHAIN.proxyFirewall, 'kubernetes load balancer firewall', NEW),
    jump('filter', 'FORWARD', CHAIN.proxyFirewall, 'kubernetes load balancer firewall', NEW),
    jump('nat', 'OUTPUT', CHAIN.services, 'kubernetes service portals'),
    jump('nat', 'PREROUTING', CHAIN.services, 'kubernetes service portals'),
    jump('nat', 'POSTROUTING', CHAIN.postrouting, 'kubernetes postrouting rules'),
  ];
  if (localhostNodePorts(ctx)) {
    rules.push(
      jump('filter', 'INPUT', CHAIN.firewall, 'kube-proxy firewall rules'),
      jump('filter', 'OUTPUT', CHAIN.firewall, 'kube-proxy firewall rules'),
    );
  }
  return rules;
}

export function filterChains(ctx: RenderContext): string[] {
  const chains: string[] = [
    CHAIN.services,
    CHAIN.externalServices,
    CHAIN.forward,
    CHAIN.nodePorts,
    CHAIN.proxyFirewall,
  ];
  if (localhostNodePorts(ctx)) chains.push(CHAIN.firewall);
  return chains;
}

export const NAT_CHAINS: readonly string[] = [CHAIN.services, CHAIN.nodePorts, CHAIN.postrouting, CHAIN.markMasq];

/** Static filter rules, written after the Services' filter rules. */
export function filterStaticRules(ctx: RenderContext): string[] {
  const mark = `${ctx.mark}/${ctx.mark}`;
  const rules: string[] = [];
  if (!ctx.config.conntrackTCPLiberal) {
    const counted = ctx.nfacct.has(NFACCT_INVALID_DROPPED) ? ` -m nfacct --nfacct-name ${NFACCT_INVALID_DROPPED}` : '';
    rules.push(`-A ${CHAIN.forward} -m conntrack --ctstate INVALID${counted} -j DROP`);
  }
  rules.push(`-A ${CHAIN.forward} ${comment('kubernetes forwarding rules')} -m mark --mark ${mark} -j ACCEPT`);
  rules.push(
    `-A ${CHAIN.forward} ${comment('kubernetes forwarding conntrack rule')} -m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT`,
  );
  if (localhostNodePorts(ctx)) {
    rules.push(
      `-A ${CHAIN.firewall} ${comment('block incoming localnet connections')} -d 127.0.0.0/8 ! -s 127.0.0.0/8 -m conntrack ! --ctstate RELATED,ESTABLISHED,DNAT -j DROP`,
    );
  }
  return rules;
}

/** Static nat rules, written after the Services' nat rules (the NodePort tail-call must be last). */
export function natStaticRules(ctx: RenderContext, node: LocalNode): string[] {
  return [
    `-A ${CHAIN.postrouting} -m mark ! --mark ${ctx.mark}/${ctx.mark} -j RETURN`,
    `-A ${CHAIN.postrouting} -j MARK --xor-mark ${ctx.mark}`,
    `-A ${CHAIN.postrouting} ${comment('kubernetes service traffic requiring SNAT')} -j MASQUERADE --random-fully`,
    `-A ${CHAIN.markMasq} -j MARK --or-mark ${ctx.mark}`,
    ...nodePortRules(ctx, node),
  ];
}

const NODEPORTS_COMMENT = 'kubernetes service nodeports; NOTE: this must be the last rule in this chain';

/** The family's NodePort CIDRs, or undefined when NodePorts are accepted on every local address. */
function matchAll(ctx: Pick<RenderContext, 'config' | 'family'>): true | undefined {
  const npa = ctx.config.nodePortAddresses;
  if (npa === 'primary') return undefined;
  const mine = npa.filter((cidr) => ipFamilyOf(cidr.split('/')[0] ?? '') === ctx.family);
  if (mine.length === 0 || mine.some((cidr) => cidr.endsWith('/0'))) return true;
  return undefined;
}

/**
 * KUBE-SERVICES' NodePort tail-call, per destination: every local address, or each of the
 * addresses core resolved from `nodePortAddresses` (`LocalNode.nodePortAddresses`; unset: all).
 * As upstream, a loopback address is skipped on IPv6 and without localhost NodePorts.
 */
function nodePortRules(ctx: RenderContext, node: LocalNode): string[] {
  const head = `-A ${CHAIN.services} ${comment(NODEPORTS_COMMENT)}`;
  const resolved = nodePortAddressesFor(node, ctx.family);
  if (resolved === 'all') {
    const guard = ctx.family === 'IPv6' ? ' ! -d ::1/128' : ctx.config.localhostNodePorts ? '' : ' ! -d 127.0.0.0/8';
    return [`${head} -m addrtype --dst-type LOCAL${guard} -j ${CHAIN.nodePorts}`];
  }
  const loopbackOK = localhostNodePorts(ctx);
  return resolved.filter((ip) => loopbackOK || !isLoopback(ip)).map((ip) => `${head} -d ${ip} -j ${CHAIN.nodePorts}`);
}

function isLoopback(ip: string): boolean {
  return ip === '::1' || cidrContains('127.0.0.0/8', ip);
}
