/**
 * kube-proxy's `nodePortAddresses` (`--nodeport-addresses`) resolved for one node: per family,
 * either every local address (`all`) or the host's interface addresses the setting selects. One
 * answer for every user: the sync stage resolves it before each sync onto `LocalNode.nodePortAddresses`,
 * which the backends render and the health-check node ports listen on.
 *
 * Upstream's semantics (`pkg/proxy/util/nodeport_addresses.go` and the `primary` default of
 * `cmd/kube-proxy`): `primary` stands for the node's primary IP of each family as a host CIDR (a
 * family without one, or with only a loopback one, matches all); the CIDRs of a family select the
 * interface addresses inside them; a family with no CIDR, or with a zero-length prefix among them,
 * matches all. The addresses are those of the host's interfaces, not of the Node object.
 */
import type { IPFamily } from '../model/types.js';
import { canonicalIP, cidrContains, formatCIDR, ipFamilyOf, parseCIDR, type CIDR } from '../util/ip.js';
import type { LocalNode } from './types.js';

/** One family's NodePort addresses: every local address, or these (sorted, canonical; possibly none). */
export type FamilyNodePortAddresses = 'all' | readonly string[];

export type NodePortAddresses = Readonly<Record<IPFamily, FamilyNodePortAddresses>>;

/** The setting's special value: the node's primary IPs. */
const NODE_PORT_ADDRESSES_PRIMARY = 'primary';

const FAMILIES: readonly IPFamily[] = ['IPv4', 'IPv6'];

/**
 * @param setting `nodePortAddresses` as configured: `[]`, `['primary']` or CIDRs (validated by the
 *   caller; text that is not a CIDR selects nothing).
 * @param interfaceAddresses the addresses of the host's interfaces (in the program's namespace).
 * @param nodeIPs the Node's addresses, primary first per family (used only by `primary`).
 * @param everyAddress when given, a family the setting matches wholly gets these addresses of that
 *   family instead of `all`, without loopback and IPv6 link-local ones (upstream ipvs mode lists
 *   the NodePort addresses it programs: the host's, `kube-ipvs0`'s left out by the caller).
 */
export function resolveNodePortAddresses(
  setting: readonly string[],
  interfaceAddresses: readonly string[],
  nodeIPs: readonly string[],
  everyAddress?: readonly string[],
): NodePortAddresses {
  const cidrs = settingCIDRs(setting, nodeIPs);
  const resolve = (family: IPFamily): FamilyNodePortAddresses => {
    const own = selectingCIDRs(cidrs, family);
    if (own === undefined) {
      if (everyAddress === undefined) return 'all';
      return listed(
        everyAddress,
        (address) => ipFamilyOf(address) === family && !isLoopback(address) && !isLinkLocal6(address),
      );
    }
    const selected = new Set<string>();
    for (const text of interfaceAddresses) {
      const address = canonicalIP(text);
      if (address !== undefined && own.some((cidr) => cidrContains(cidr, address))) selected.add(address);
    }
    return [...selected].sort();
  };
  return { IPv4: resolve('IPv4'), IPv6: resolve('IPv6') };
}

/**
 * One family's NodePort addresses on the node view, as every backend reads them: what the sync
 * stage resolved (`LocalNode.nodePortAddresses`), `all` when nothing was resolved (a state
 * rendered outside a program: every local address, the type's documented default).
 */
export function nodePortAddressesFor(node: LocalNode, family: IPFamily): FamilyNodePortAddresses {
  return node.nodePortAddresses?.[family] ?? 'all';
}

/**
 * Whether a destination of `family` is a NodePort address (stale UDP flow cleanup): one of the
 * resolved addresses, or any address when the family matches all (upstream's NodePort flow filter
 * is the port alone).
 */
export function nodePortAddressTest(node: LocalNode, family: IPFamily): (ip: string) => boolean {
  const resolved = nodePortAddressesFor(node, family);
  if (resolved === 'all') return () => true;
  const addresses = new Set(resolved);
  return (ip) => {
    const address = canonicalIP(ip);
    return address !== undefined && addresses.has(address);
  };
}

/** One family's NodePort selection: every local address, or the local addresses inside these CIDRs (canonical). */
export type FamilyNodePortSelection = 'all' | readonly string[];

/**
 * `setting` per family before any interface is read: `primary` as the Node's primary IP of the
 * family as a host CIDR (a family without one, or with only a loopback one, matches all), a family
 * with no CIDR or a zero-length one matches all. The one reading of the setting: `resolveNodePortAddresses`
 * applies it to the interfaces' addresses; a backend whose kernel rule asks whether the destination
 * is local (nftables' `fib daddr type local`) renders it as it is.
 * @param nodeIPs the Node's addresses, primary first per family (`LocalNode.addresses`).
 */
export function nodePortSelection(
  setting: readonly string[],
  nodeIPs: readonly string[],
): Readonly<Record<IPFamily, FamilyNodePortSelection>> {
  const cidrs = settingCIDRs(setting, nodeIPs);
  const of = (family: IPFamily): FamilyNodePortSelection => {
    const own = selectingCIDRs(cidrs, family);
    return own === undefined ? 'all' : [...new Set(own.map(formatCIDR))].sort();
  };
  return { IPv4: of('IPv4'), IPv6: of('IPv6') };
}

/**
 * The families in which `setting` selects addresses; in the others it matches every local address.
 * A family's resolved value (`resolveNodePortAddresses`) is the selection exactly when it is one
 * of these (a listed `everyAddress` family is not).
 */
export function nodePortSelectingFamilies(setting: readonly string[], nodeIPs: readonly string[]): IPFamily[] {
  const cidrs = settingCIDRs(setting, nodeIPs);
  return FAMILIES.filter((family) => selectingCIDRs(cidrs, family) !== undefined);
}

function settingCIDRs(setting: readonly string[], nodeIPs: readonly string[]): CIDR[] {
  const primary = setting.length === 1 && setting[0] === NODE_PORT_ADDRESSES_PRIMARY;
  return primary ? primaryCIDRs(nodeIPs) : setting.flatMap((text) => parseCIDR(text) ?? []);
}

/** The family's CIDRs when they select (some, none of them zero-length); undefined: they match all. */
function selectingCIDRs(cidrs: readonly CIDR[], family: IPFamily): CIDR[] | undefined {
  const own = cidrs.filter((cidr) => cidr.family === family);
  return own.length === 0 || own.some((cidr) => cidr.prefixLength === 0) ? undefined : own;
}

/** The node's first non-loopback IP of each family, as a host CIDR. */
function primaryCIDRs(nodeIPs: readonly string[]): CIDR[] {
  const out: CIDR[] = [];
  for (const family of FAMILIES) {
    const ip = nodeIPs.find((text) => ipFamilyOf(text) === family);
    if (ip === undefined || isLoopback(ip)) continue;
    const cidr = parseCIDR(`${ip}/${family === 'IPv4' ? 32 : 128}`);
    if (cidr !== undefined) out.push(cidr);
  }
  return out;
}

/** The canonical, distinct, sorted addresses of `texts` that `keep` accepts. */
function listed(texts: readonly string[], keep: (address: string) => boolean): string[] {
  const out = new Set<string>();
  for (const text of texts) {
    const address = canonicalIP(text);
    if (address !== undefined && keep(address)) out.add(address);
  }
  return [...out].sort();
}

function isLinkLocal6(ip: string): boolean {
  return cidrContains('fe80::/10', ip);
}

function isLoopback(ip: string): boolean {
  return cidrContains('127.0.0.0/8', ip) || cidrContains('::1/128', ip);
}
