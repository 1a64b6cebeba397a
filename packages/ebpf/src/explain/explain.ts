/**
 * `explain` for the ebpf backend: what the running backend holds in its BPF maps for one Service,
 * read from a separate process. The maps carry no names, so the Service comes from the API server
 * first (`ExplainContext.lookupService`, as for IPVS); its addresses and ports are then looked up
 * key by key in the maps of kpng's program attached to `--cgroup-root` (`attached.ts`): each
 * address's lb, each lb's endpoints, and how many sockets and clients the programs have recorded
 * for them (revnat, affinity). With `--packet-path nft`, the nft backend's explain of its tables
 * follows. Reads only.
 */
import {
  ipFamilyOf,
  type ExplainContext,
  type ExplainLine,
  type ExplainReport,
  type ExplainSection,
  type ServiceModel,
  type ServiceRef,
} from '@kpng/core';
import { explainNft } from '@kpng/nft';
import { resolveCgroup } from '../cgroup/cgroup.js';
import type { MapIO } from '../backend/kernel.js';
import { libbpf } from '../libbpf/ffi.js';
import {
  decodeEndpoint,
  decodeLb,
  endpointKey,
  endpointValue,
  LB_REJECT,
  LB_UNREACHABLE,
  serviceKey,
  serviceMapOf,
  type LbValue,
} from '../maps/layout.js';
import { openAttached, type ExplainMapName } from './attached.js';

/** One map as explain reads it: single lookups (Service and endpoint maps), scans (revnat, affinity). */
export interface ReadMap extends Pick<MapIO, 'scan'> {
  get(key: Buffer): Buffer | undefined;
}

export type ExplainMaps = Partial<Record<ExplainMapName, ReadMap>>;

/** Endpoint lines printed per lb; the rest are counted (a count in the map is the kernel's to hold). */
export const MAX_ENDPOINT_LINES = 10_000;
/** revnat and affinity are read to their max_entries, and never past this. */
const MAX_SCAN = 1 << 24;
const SCAN_SLICE = 4096;

interface Frontend {
  readonly kind: string;
  readonly ip: string;
  readonly port: number;
  readonly protocol: string;
  readonly family: 'IPv4' | 'IPv6';
}

const at = (f: Pick<Frontend, 'ip' | 'port' | 'family'>): string =>
  f.family === 'IPv4' ? `${f.ip}:${f.port}` : `[${f.ip}]:${f.port}`;

function frontendsOf(model: ServiceModel): Frontend[] {
  const out: Frontend[] = [];
  const kinds: [string, readonly string[]][] = [
    ['ClusterIP', model.clusterIPs],
    ['external IP', model.externalIPs],
    ['LB IP', model.loadBalancerIPs],
  ];
  for (const [kind, ips] of kinds)
    for (const ip of ips) {
      const family = ipFamilyOf(ip);
      if (family === undefined) continue;
      for (const port of model.ports) out.push({ kind, ip, port: port.port, protocol: port.protocol, family });
    }
  return out;
}

function describeLb(lb: LbValue): string {
  if (lb.flags & LB_REJECT) return `lb ${lb.id}: REJECT (no endpoints: connect()/sendmsg() fail with ECONNREFUSED)`;
  if (lb.flags & LB_UNREACHABLE)
    return `lb ${lb.id}: UNREACHABLE (no endpoint this node may use: connect()/sendmsg() fail with EHOSTUNREACH)`;
  const affinity = lb.affinitySeconds > 0 ? `, ClientIP affinity ${lb.affinitySeconds} s` : '';
  return `lb ${lb.id}: ${lb.count} endpoint${lb.count === 1 ? '' : 's'}${affinity}`;
}

/** Every element of a map, up to `bound`, as (key hex, value hex), in slices (the scan gives the event loop turns). */
async function* elements(map: ReadMap, bound: number): AsyncGenerator<readonly [string, string]> {
  let cursor: Parameters<MapIO['scan']>[0];
  let read = 0;
  do {
    const slice = await map.scan(cursor, SCAN_SLICE);
    for (const entry of slice.entries) {
      if (read++ >= bound) return;
      yield entry;
    }
    cursor = slice.next;
  } while (cursor !== undefined);
}

/**
 * The report for one attached object: `model`'s addresses and ports looked up in `maps`. Pure
 * over the map reads (a fake's maps in unit tests, the kernel's in `explainEbpf`).
 */
export async function lbReport(
  source: string,
  model: ServiceModel,
  maps: ExplainMaps,
  maxEntries: Partial<Record<ExplainMapName, number>> = {},
): Promise<ExplainReport> {
  const entries: ExplainLine[] = [];
  const lbs = new Map<number, { lb: LbValue; family: Frontend['family']; frontends: Frontend[] }>();
  for (const f of frontendsOf(model)) {
    const name = `${f.kind} ${at(f)}/${f.protocol}`;
    if (f.protocol !== 'TCP' && f.protocol !== 'UDP') {
      entries.push({ text: `${name}: not balanced at the socket (the socket hooks serve TCP and UDP)` });
      continue;
    }
    const map = maps[serviceMapOf(f.family)];
    const value = map?.get(serviceKey(f.family, f.ip, f.port, f.protocol));
    if (map === undefined) {
      entries.push({ text: `${name}: ${serviceMapOf(f.family)} not found` });
    } else if (value === undefined) {
      const guarded = f.kind === 'LB IP' && model.loadBalancerSourceRanges.length > 0;
      entries.push({
        text: `${name}: not in the map${guarded ? ' (loadBalancerSourceRanges: left to the packet path)' : ''}`,
      });
    } else {
      const lb = decodeLb(value);
      entries.push({ text: `${name} -> ${describeLb(lb)}` });
      const seen = lbs.get(lb.id) ?? { lb, family: f.family, frontends: [] };
      seen.frontends.push(f);
      lbs.set(lb.id, seen);
    }
  }
  const sections: ExplainSection[] = [{ title: 'service entries (services4, services6)', lines: entries }];

  // What the programs recorded: revnat (socket cookie, endpoint) -> the Service address asked for.
  const sockets = new Map<string, number>(); // service address value hex -> sockets
  const socketsTo = new Map<string, number>(); // service address value hex + endpoint hex -> sockets
  const revnat = maps.revnat;
  if (revnat !== undefined) {
    for await (const [key, value] of elements(revnat, Math.min(maxEntries.revnat ?? MAX_SCAN, MAX_SCAN))) {
      sockets.set(value, (sockets.get(value) ?? 0) + 1);
      const to = value + key.slice(16, 56);
      socketsTo.set(to, (socketsTo.get(to) ?? 0) + 1);
    }
  }
  const clients = new Map<number, number>(); // lb id -> affinity entries
  const affinity = maps.affinity;
  if (affinity !== undefined && [...lbs.values()].some(({ lb }) => lb.affinitySeconds > 0)) {
    for await (const [key] of elements(affinity, Math.min(maxEntries.affinity ?? MAX_SCAN, MAX_SCAN))) {
      const id = Buffer.from(key.slice(16, 24), 'hex').readUInt32LE(0);
      clients.set(id, (clients.get(id) ?? 0) + 1);
    }
  }

  const endpointsMap = maps.endpoints;
  for (const [id, { lb, family, frontends }] of [...lbs].sort(([a], [b]) => a - b)) {
    if (lb.flags !== 0 || lb.count === 0) continue;
    const lines: ExplainLine[] = [];
    const addresses = frontends.map((f) => endpointValue(f.family, f.ip, f.port).toString('hex'));
    const shown = Math.min(lb.count, MAX_ENDPOINT_LINES);
    const missing: number[] = [];
    for (let index = 0; index < shown && endpointsMap !== undefined; index++) {
      const ep = endpointsMap.get(endpointKey(id, index));
      if (ep === undefined) {
        missing.push(index);
        continue;
      }
      const hex = ep.toString('hex');
      const n = addresses.reduce((sum, a) => sum + (socketsTo.get(a + hex) ?? 0), 0);
      const counted = revnat === undefined ? '' : `, ${n} socket${n === 1 ? '' : 's'} balanced to it`;
      lines.push({ text: `#${index} ${decodeEndpoint(ep, family)}${counted}` });
    }
    if (missing.length > 0)
      lines.push({
        text: `missing at ${missing.length} of the indexes read (the first #${missing[0]}): a sync in progress, or drift`,
      });
    if (endpointsMap === undefined) lines.push({ text: 'endpoints map not found' });
    if (lb.count > shown) lines.push({ text: `... ${lb.count - shown} more` });
    if (lb.affinitySeconds > 0 && affinity !== undefined)
      lines.push({ text: `${clients.get(id) ?? 0} clients held by ClientIP affinity (affinity entries)` });
    sections.push({ title: `lb ${id} endpoints`, lines });
  }

  if (revnat !== undefined && lbs.size > 0) {
    const lines = [...lbs.values()].flatMap(({ frontends }) =>
      [...new Map(frontends.map((f) => [at(f), f])).values()].map((f) => {
        const n = sockets.get(endpointValue(f.family, f.ip, f.port).toString('hex')) ?? 0;
        return { text: `${at(f)}: ${n} socket${n === 1 ? '' : 's'}` };
      }),
    );
    sections.push({
      title:
        'sockets balanced per address (revnat entries, TCP and UDP together; least recently used evicted first, a closed socket stays until then)',
      lines,
    });
  }
  return { source, sections };
}

export interface EbpfExplainConfig {
  /** `--cgroup-root`: where the running backend attached its programs. */
  readonly cgroup: string;
  /** `--packet-path nft`: the nft backend's tables, explained by it. */
  readonly nft?: Parameters<typeof explainNft>[0];
}

const firstLine = (e: unknown): string => ((e as Error).message ?? String(e)).split('\n')[0] ?? '';

/** Reports for `kpng explain` / `kube-proxy explain` in ebpf mode. */
export async function explainEbpf(
  config: EbpfExplainConfig,
  service: ServiceRef,
  ctx: ExplainContext,
): Promise<ExplainReport[]> {
  if (ctx.lookupService === undefined)
    throw new Error(
      `BPF maps keep no Service names: explain needs the API server to find ${service.namespace}/${service.name}`,
    );
  const model = await ctx.lookupService();
  const reports: ExplainReport[] = [];
  const where = `BPF maps on cgroup ${config.cgroup}`;
  try {
    const cgroup = resolveCgroup(config.cgroup);
    const attached = openAttached(libbpf(), cgroup);
    try {
      if (attached.lbs.length === 0)
        reports.push({ source: `${where} (no kpng program attached there)`, sections: [] });
      for (const lb of attached.lbs)
        reports.push(await lbReport(`${where} (programs ${lb.progIds.join(', ')})`, model, lb.maps, lb.maxEntries));
    } finally {
      attached.close();
    }
  } catch (e) {
    reports.push({ source: `${where} (not readable: ${firstLine(e)})`, sections: [] });
  }
  if (config.nft !== undefined) reports.push(...(await explainNft(config.nft, service, ctx)));
  return reports;
}
