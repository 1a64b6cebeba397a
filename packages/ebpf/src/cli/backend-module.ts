/**
 * The eBPF backend as every kpng program loads it: `kpng-ebpf` and `kpng --backend ebpf`.
 * `parseFlags` is pure: values in, validated options out.
 */
import { csvFlag as csv, defineBackend, UsageError, type FlagValues, type IPFamily } from '@kpng/core';
import { backend as nft } from '@kpng/nft';
import { EbpfBackend } from '../backend/ebpf-backend.js';
import { explainEbpf } from '../explain/explain.js';
import { MAX_MAP_ENTRIES } from '../libbpf/sock-lb.js';
import type { MapName } from '../maps/layout.js';

type NftFlagConfig = ReturnType<typeof nft.parseFlags>;

export interface EbpfFlagConfig {
  readonly cgroup: string;
  readonly families: readonly IPFamily[];
  /** How far each map may grow (`--max-services`, `--max-endpoints`); they start small and grow with the state. */
  readonly maxEntries: Partial<Record<MapName, number>>;
  /** `--packet-path nft`: the nft backend's configuration, from its own flags. */
  readonly nft?: NftFlagConfig;
}

const text = (values: FlagValues, name: string): string | undefined => values[name] as string | undefined;
const MAX_ENTRIES = MAX_MAP_ENTRIES;

function entries(values: FlagValues, flag: string): number | undefined {
  const raw = text(values, flag);
  if (raw === undefined) return undefined;
  const n = /^[0-9]{1,9}$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isInteger(n) || n < 1 || n > MAX_ENTRIES) throw new UsageError(`--${flag} takes 1..${MAX_ENTRIES}`);
  return n;
}

/** The flags to options; every problem is a UsageError naming the flag. */
export function parseEbpfFlags(values: FlagValues): EbpfFlagConfig {
  const cgroup = text(values, 'cgroup-root');
  if (cgroup === undefined || cgroup.trim() === '')
    throw new UsageError(
      '--cgroup-root is required: the cgroup v2 directory whose processes get Service load balancing',
    );
  if (!cgroup.startsWith('/')) throw new UsageError('--cgroup-root must be an absolute path');
  const raw = csv(text(values, 'ip-families'));
  if (raw.some((f) => f !== 'IPv4' && f !== 'IPv6')) throw new UsageError('--ip-families takes IPv4, IPv6');
  const packetPath = text(values, 'packet-path') ?? 'none';
  if (packetPath !== 'none' && packetPath !== 'nft') throw new UsageError('--packet-path takes nft or none');
  const services = entries(values, 'max-services');
  const endpoints = entries(values, 'max-endpoints');
  return {
    cgroup,
    families: raw.length > 0 ? (raw as IPFamily[]) : ['IPv4', 'IPv6'],
    maxEntries: {
      ...(services === undefined ? {} : { services4: services, services6: services }),
      ...(endpoints === undefined ? {} : { endpoints }),
    },
    // North-south only: the maps balance TCP/UDP ClusterIPs at the socket; nft writes nothing for them.
    ...(packetPath === 'nft' ? { nft: { ...nft.parseFlags(values), scope: 'north-south' } } : {}),
  };
}

export const backend = defineBackend<EbpfFlagConfig>({
  name: 'ebpf',
  program: 'kpng-ebpf',
  proxyMode: 'ebpf',
  summary: 'balances Service connections at connect()/sendmsg() in cgroup v2 BPF programs (attached to --cgroup-root)',
  flags: {
    // The nft backend's flags configure the packet path (--packet-path nft).
    ...nft.flags,
    'packet-path': {
      type: 'string',
      value: 'nft|none',
      help: 'what programs traffic the socket hooks cannot see (entering the node: NodePorts, external/LB IPs, source ranges, masquerade); nft: the nft backend, with its flags',
      default: 'none',
    },
    'cgroup-root': {
      type: 'string',
      value: 'PATH',
      help: 'cgroup v2 directory to attach to (e.g. /sys/fs/cgroup): its processes and those below it are balanced',
    },
    'ip-families': { type: 'string', value: 'LIST', help: 'IPv4,IPv6', default: 'both' },
    'max-services': {
      type: 'string',
      value: 'N',
      help: 'most Service address:port:protocol entries per family the maps grow to (they are sized from the state; beyond this a sync is refused, counted)',
      default: '1048576',
    },
    'max-endpoints': {
      type: 'string',
      value: 'N',
      help: 'most endpoint entries the map grows to (sized from the state; beyond this a sync is refused, counted)',
      default: '4194304',
    },
  },
  parseFlags: parseEbpfFlags,
  // The running backend's maps, found through the programs attached to --cgroup-root; the packet path's tables.
  explain: (config, service, ctx) => explainEbpf(config, service, ctx),
  create: (config, ctx) => {
    if (ctx.netns !== undefined)
      throw new UsageError(
        'the ebpf backend attaches to a cgroup, not a network namespace: KPNG_NETNS is not supported',
      );
    const { nft: nftConfig, ...own } = config;
    const packetPath = nftConfig === undefined ? undefined : nft.create(nftConfig, ctx);
    if (packetPath instanceof Promise) throw new Error('the nft backend module creates asynchronously');
    return new EbpfBackend({ ...own, metrics: ctx.registry, ...(packetPath === undefined ? {} : { packetPath }) });
  },
});
