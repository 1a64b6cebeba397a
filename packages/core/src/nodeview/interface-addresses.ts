/**
 * The host's interface addresses, as `nodePortAddresses` selects among them: read with
 * `ip -j addr show` through the kit's exec seam, in the network namespace the program programs
 * (`--netns`; its own otherwise), at each sync (upstream calls `net.InterfaceAddrs()` at each
 * sync). The one reader; `nodePortAddressesReader` resolves the setting over it for the sync loop,
 * which puts the result on `LocalNode.nodePortAddresses` for the backends to render.
 *
 * The tool's output is input like any other: bounded in size and count, parsed as JSON, and only
 * the `local` addresses that parse as IP addresses of the entry's family are kept (canonical).
 * Anything else is a clear `InterfaceAddressesError` (the sync fails, is counted and retried).
 */
import { inNetns, processExecer, type Execer } from '@kpng/kit';
import type { IPFamily } from '../model/types.js';
import { canonicalIP, ipFamilyOf } from '../util/ip.js';
import { resolveNodePortAddresses, type NodePortAddresses } from './node-port-addresses.js';
import type { LocalNode } from './types.js';

/**
 * Output larger than this is refused. `ip -j` prints ~160 bytes per address: an ipvs-mode node binds
 * every Service IP to kube-ipvs0 (s50k: ~55,000 addresses, ~9 MB), so the bound leaves room for the
 * count bound's 65,536 addresses.
 */
export const MAX_IP_ADDR_OUTPUT = 16 * 1024 * 1024;
/** More addresses than this are refused. */
export const MAX_INTERFACE_ADDRESSES = 65_536;

export class InterfaceAddressesError extends Error {
  override readonly name = 'InterfaceAddressesError';
}

const FAMILY_OF: Readonly<Record<string, IPFamily>> = { inet: 'IPv4', inet6: 'IPv6' };

/** One address of one interface, as `ip -j addr show` lists it. */
export interface InterfaceAddress {
  /** Canonical. */
  readonly address: string;
  /** The interface's name (`ifname`), when the tool printed one. */
  readonly device?: string;
}

/**
 * The addresses in `ip -j addr show`'s output: canonical, distinct, sorted. Throws on malformed
 * output. `maxAddresses` is the count bound (a parameter for tests).
 */
export function parseIpAddrJson(text: string, maxAddresses = MAX_INTERFACE_ADDRESSES): string[] {
  return distinctSorted(parseIpAddrEntries(text, maxAddresses));
}

/** Every (address, interface) of `ip -j addr show`'s output, in its order; the same checks as `parseIpAddrJson`. */
export function parseIpAddrEntries(text: string, maxAddresses = MAX_INTERFACE_ADDRESSES): InterfaceAddress[] {
  if (text.length > MAX_IP_ADDR_OUTPUT)
    throw new InterfaceAddressesError(`ip -j addr: output over ${MAX_IP_ADDR_OUTPUT} bytes`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new InterfaceAddressesError('ip -j addr: output is not JSON');
  }
  if (!Array.isArray(parsed)) throw new InterfaceAddressesError('ip -j addr: output is not a list of interfaces');
  const out: InterfaceAddress[] = [];
  for (const link of parsed as unknown[]) {
    if (!isRecord(link)) throw new InterfaceAddressesError('ip -j addr: an interface is not an object');
    const infos = link['addr_info'];
    if (infos === undefined) continue; // a link with no address
    if (!Array.isArray(infos)) throw new InterfaceAddressesError('ip -j addr: addr_info is not a list');
    const device = typeof link['ifname'] === 'string' ? link['ifname'] : undefined;
    for (const info of infos as unknown[]) {
      if (!isRecord(info)) throw new InterfaceAddressesError('ip -j addr: an address is not an object');
      const family = typeof info['family'] === 'string' ? FAMILY_OF[info['family']] : undefined;
      if (family === undefined) continue; // another family (e.g. a link-layer entry)
      const local = info['local'];
      const address = typeof local === 'string' ? canonicalIP(local) : undefined;
      if (address === undefined || ipFamilyOf(address) !== family) {
        throw new InterfaceAddressesError(
          `ip -j addr: invalid ${family} address ${JSON.stringify(local)?.slice(0, 64)}`,
        );
      }
      out.push(device === undefined ? { address } : { address, device });
      if (out.length > maxAddresses)
        throw new InterfaceAddressesError(`ip -j addr: more than ${maxAddresses} addresses`);
    }
  }
  return out;
}

function distinctSorted(entries: readonly InterfaceAddress[]): string[] {
  return [...new Set(entries.map((e) => e.address))].sort();
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export interface InterfaceAddressOptions {
  /** The kit's exec seam (`processExecer` by default). */
  readonly execer?: Execer;
  /** Read the interfaces of this network namespace (`ip netns add`'s name) instead of the process's own. */
  readonly netns?: string;
}

/** The interface addresses of the namespace, read now. Throws `InterfaceAddressesError` (or the seam's error). */
export async function readInterfaceAddresses(options: InterfaceAddressOptions = {}): Promise<string[]> {
  return distinctSorted(await readInterfaceAddressEntries(options));
}

/** The namespace's (address, interface) pairs, read now; errors as `readInterfaceAddresses`. */
export async function readInterfaceAddressEntries(options: InterfaceAddressOptions = {}): Promise<InterfaceAddress[]> {
  const argv = inNetns(options.netns, ['ip', '-j', 'addr', 'show']);
  const result = await (options.execer ?? processExecer).run(argv, '');
  if (result.exitCode !== 0) {
    throw new InterfaceAddressesError(
      `ip -j addr exited with ${result.exitCode}: ${result.stderr.trim().slice(0, 200)}`,
    );
  }
  return parseIpAddrEntries(result.stdout);
}

/** What the sync loop calls before each sync: the node's NodePort addresses, per family, now. */
export type NodePortAddressesReader = (node: LocalNode) => Promise<NodePortAddresses>;

export interface NodePortAddressesReaderOptions extends InterfaceAddressOptions {
  /**
   * A family the setting matches wholly is listed, not `all`: the host's addresses of that family
   * except those on this interface only, loopback and IPv6 link-local (upstream ipvs mode's
   * NodePort addresses: every local address but `kube-ipvs0`'s, where it binds Service IPs).
   */
  readonly listEveryAddressExcept?: string;
}

/**
 * `setting` (`nodePortAddresses`: `[]`, `['primary']` or CIDRs) resolved at each call over the
 * interfaces read then. A setting that matches every address in both families reads nothing,
 * unless `listEveryAddressExcept` asks for the list.
 */
export function nodePortAddressesReader(
  setting: readonly string[],
  options: NodePortAddressesReaderOptions = {},
): NodePortAddressesReader {
  const except = options.listEveryAddressExcept;
  return async (node) => {
    const unread = resolveNodePortAddresses(setting, [], node.addresses);
    if (unread.IPv4 === 'all' && unread.IPv6 === 'all' && except === undefined) return unread;
    const entries = await readInterfaceAddressEntries(options);
    const every = except === undefined ? undefined : distinctSorted(entries.filter((e) => e.device !== except));
    return resolveNodePortAddresses(setting, distinctSorted(entries), node.addresses, every);
  };
}
