/**
 * kube-proxy's `nodePortAddresses` (`--nodeport-addresses`) resolved for one node: per family,
 * either every local address (`all`) or the host's interface addresses the setting selects. One
 * answer for every user (health-check node ports now; the backends' NodePort addresses next).
 *
 * Upstream's semantics (`pkg/proxy/util/nodeport_addresses.go` and the `primary` default of
 * `cmd/kube-proxy`): `primary` stands for the node's primary IP of each family as a host CIDR (a
 * family without one, or with only a loopback one, matches all); the CIDRs of a family select the
 * interface addresses inside them; a family with no CIDR, or with a zero-length prefix among them,
 * matches all. The addresses are those of the host's interfaces, not of the Node object.
 */
import type { IPFamily } from '../model/types.js';
import { canonicalIP, cidrContains, ipFamilyOf, parseCIDR, type CIDR } from '../util/ip.js';

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
 */
export function resolveNodePortAddresses(
  setting: readonly string[],
  interfaceAddresses: readonly string[],
  nodeIPs: readonly string[],
): NodePortAddresses {
  const primary = setting.length === 1 && setting[0] === NODE_PORT_ADDRESSES_PRIMARY;
  const cidrs = primary ? primaryCIDRs(nodeIPs) : setting.flatMap((text) => parseCIDR(text) ?? []);
  const resolve = (family: IPFamily): FamilyNodePortAddresses => {
    const own = cidrs.filter((cidr) => cidr.family === family);
    if (own.length === 0 || own.some((cidr) => cidr.prefixLength === 0)) return 'all';
    const selected = new Set<string>();
    for (const text of interfaceAddresses) {
      const address = canonicalIP(text);
      if (address !== undefined && own.some((cidr) => cidrContains(cidr, address))) selected.add(address);
    }
    return [...selected].sort();
  };
  return { IPv4: resolve('IPv4'), IPv6: resolve('IPv6') };
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

function isLoopback(ip: string): boolean {
  return cidrContains('127.0.0.0/8', ip) || cidrContains('::1/128', ip);
}
