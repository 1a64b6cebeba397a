/**
 * What each proxy mode leaves in the kernel, and removing it: kpng's own objects and those of
 * upstream kube-proxy's three Linux modes (pkg/proxy/{iptables,ipvs,nftables} CleanupLeftovers).
 *
 * - iptables: the KUBE-* chains of upstream's iptables mode (which are kpng's) and of its ipvs mode
 *   (KUBE-NODE-PORT, KUBE-LOAD-BALANCER, KUBE-SOURCE-RANGES-FIREWALL, KUBE-IPVS-FILTER,
 *   KUBE-IPVS-OUT-FILTER), in both families and in both flavours (iptables-legacy and
 *   iptables-nft keep separate rules, both hooked into the data path);
 * - ipsets: the 17 sets of upstream's ipvs mode (`KUBE-*` for IPv4, `KUBE-6-*` for IPv6), after the
 *   chains that match on them are gone (a set in use cannot be destroyed);
 * - IPVS: the virtual servers (outside ipvs.excludeCIDRs), `kube-ipvs0` and kpng's `kpng-ipvs`
 *   tables (the ipvs backend's cleanup);
 * - nftables: the `kube-proxy` (upstream's and kpng's) and `kpng` tables, in `ip` and `ip6`.
 *
 * `plan(mode)` says which of those a proxy starting in `mode` removes once its own first sync is in
 * place: everything of the other modes, and of its own mode only what it does not take over in
 * place (see platform-cleanup.ts). `--cleanup` removes everything.
 */
import type { IPFamily, Logger } from '@kpng/core';
// The iptables package is imported where chains or ipsets are removed: a proxy in another mode
// loads it after its first sync (platform-cleanup.ts), not at start.
import type { CleanupScope } from '@kpng/iptables';
import { processExecer } from '@kpng/kit';

export type Flavour = 'legacy' | 'nft';

export interface LeftoverPlan {
  /** nftables tables removed in `ip` and `ip6`. */
  readonly nftTables: readonly string[];
  /** Per iptables flavour, which KUBE-* chains go, per family. */
  readonly iptables: ReadonlyMap<Flavour, Readonly<Record<IPFamily, CleanupScope>>>;
  /** Upstream ipvs mode's ipsets. */
  readonly ipsets: boolean;
  /** IPVS virtual servers, kube-ipvs0 and the `kpng-ipvs` tables. */
  readonly ipvs: boolean;
}

/** Upstream ipvs mode's ipsets (pkg/proxy/ipvs ipsetInfo); the IPv6 twins are named `KUBE-6-...`. */
export const UPSTREAM_IPVS_IPSETS: readonly string[] = [
  'KUBE-LOOP-BACK',
  'KUBE-CLUSTER-IP',
  'KUBE-EXTERNAL-IP',
  'KUBE-EXTERNAL-IP-LOCAL',
  'KUBE-LOAD-BALANCER',
  'KUBE-LOAD-BALANCER-FW',
  'KUBE-LOAD-BALANCER-LOCAL',
  'KUBE-LOAD-BALANCER-SOURCE-IP',
  'KUBE-LOAD-BALANCER-SOURCE-CIDR',
  'KUBE-NODE-PORT-TCP',
  'KUBE-NODE-PORT-LOCAL-TCP',
  'KUBE-NODE-PORT-UDP',
  'KUBE-NODE-PORT-LOCAL-UDP',
  'KUBE-NODE-PORT-SCTP-HASH',
  'KUBE-NODE-PORT-LOCAL-SCTP-HASH',
  'KUBE-HEALTH-CHECK-NODE-PORT',
  'KUBE-IPVS-IPS',
];

const IPSETS = new Set([...UPSTREAM_IPVS_IPSETS, ...UPSTREAM_IPVS_IPSETS.map((n) => n.replace(/^KUBE-/, 'KUBE-6-'))]);

export interface PlanInput {
  /** The mode starting, or `cleanup` for `--cleanup`. */
  readonly mode: string;
  /** The nftables table nftables mode uses (`kube-proxy` unless configured otherwise). */
  readonly nftTable: string;
  /** Every nftables table name kube-proxy or kpng may have used. */
  readonly nftTables: readonly string[];
  /** iptables mode: the flavour its `iptables` is (its chains there are taken over in place). */
  readonly flavour?: Flavour;
  /** iptables mode: the families it programs (the chains of the others are leftovers); default both. */
  readonly families?: readonly IPFamily[];
}

const ALL = { IPv4: 'all', IPv6: 'all' } as const;
const BOTH: ReadonlyMap<Flavour, Readonly<Record<IPFamily, CleanupScope>>> = new Map([
  ['legacy', ALL],
  ['nft', ALL],
]);

export function plan({ mode, nftTable, nftTables, flavour, families = FAMILIES }: PlanInput): LeftoverPlan {
  const tables = [...new Set(nftTables)];
  switch (mode) {
    case 'cleanup':
      return { nftTables: tables, iptables: BOTH, ipsets: true, ipvs: true };
    case 'nftables':
      // Its own table is taken over in place (the first sync replaces its content).
      return { nftTables: tables.filter((t) => t !== nftTable), iptables: BOTH, ipsets: true, ipvs: true };
    case 'ipvs':
      // Virtual servers and kube-ipvs0 are taken over in place; kpng's ipvs mode filters in nftables
      // (`kpng-ipvs`), so every KUBE-* chain is another mode's.
      return { nftTables: tables, iptables: BOTH, ipsets: true, ipvs: false };
    case 'iptables': {
      // Its flavour's shared chains are taken over in place; ipvs mode's own chains go; the other
      // flavour's rules are another proxy's, all of them.
      const own = (f: Flavour) =>
        f !== flavour
          ? ALL
          : ({
              IPv4: families.includes('IPv4') ? 'ipvs-mode' : 'all',
              IPv6: families.includes('IPv6') ? 'ipvs-mode' : 'all',
            } as const);
      const iptables = new Map<Flavour, Readonly<Record<IPFamily, CleanupScope>>>([
        ['legacy', own('legacy')],
        ['nft', own('nft')],
      ]);
      if (flavour === undefined) iptables.clear(); // unknown flavour: touch no chain
      return { nftTables: tables, iptables, ipsets: flavour !== undefined, ipvs: true };
    }
    default:
      return { nftTables: [], iptables: new Map(), ipsets: false, ipvs: false };
  }
}

const FAMILIES: readonly IPFamily[] = ['IPv4', 'IPv6'];

export interface KernelAccess {
  readonly netns?: string;
  readonly log: Logger;
}

/**
 * Removes the KUBE-* chains of `scope` in one flavour, both families. A flavour or family whose
 * tables cannot be read (its tools absent, the kernel without legacy xtables, IPv6 disabled) holds
 * nothing to remove and is skipped; a failure to remove what is there throws.
 */
export async function removeIptablesChains(
  flavour: Flavour,
  scopes: Readonly<Record<IPFamily, CleanupScope>>,
  ka: KernelAccess,
): Promise<string[]> {
  const { cleanupFamily, IptablesClient } = await import('@kpng/iptables');
  const client = new IptablesClient({
    execer: processExecer,
    flavour,
    ...(ka.netns !== undefined ? { netns: ka.netns } : {}),
  });
  const removed: string[] = [];
  for (const family of FAMILIES) {
    try {
      await client.save(family, 'filter');
    } catch (e) {
      ka.log.info('iptables flavour not readable here; nothing of it to remove', {
        flavour,
        family,
        reason: (e as Error).message.split('\n')[0],
      });
      continue;
    }
    const chains = await cleanupFamily(client, family, scopes[family]);
    removed.push(...chains.map((c) => `${flavour} ${family} ${c}`));
  }
  return removed;
}

/**
 * Destroys upstream ipvs mode's ipsets that exist. No `ipset` tool, or a kernel without ipset:
 * nothing to remove. A set still in use (a rule of another program matching on it) throws.
 */
export async function removeIpsets(ka: KernelAccess): Promise<string[]> {
  // The iptables client is this package's way to run a tool in the namespace (named and checked once).
  const { IptablesClient } = await import('@kpng/iptables');
  const ns = new IptablesClient({
    execer: processExecer,
    flavour: 'auto',
    ...(ka.netns !== undefined ? { netns: ka.netns } : {}),
  });
  let listed;
  try {
    listed = await ns.run(['ipset', 'list', '-n']);
  } catch (e) {
    ka.log.info('no ipset tool; no ipset to remove', { reason: (e as Error).message.split('\n')[0] });
    return [];
  }
  if (listed.exitCode !== 0) {
    ka.log.info('ipsets not readable here; none to remove', { reason: listed.stderr.trim().split('\n')[0] });
    return [];
  }
  const present = listed.stdout
    .split('\n')
    .map((l) => l.trim())
    .filter((name) => IPSETS.has(name));
  for (const name of present) {
    const result = await ns.run(['ipset', 'destroy', name]);
    if (result.exitCode !== 0) throw new Error(`ipset destroy ${name} failed: ${result.stderr.trim()}`);
  }
  return present.map((name) => `ipset ${name}`);
}
