/**
 * The chains that pick an endpoint. One shared chain per distinct (protocol, key kind, list,
 * endpoint count) serves every service with that shape: the endpoints themselves are elements of
 * `endpoints-<proto>`, keyed by service address, port and slot.
 *
 *   `meta l4proto tcp dnat ip to ip daddr . th dport . numgen random mod 3 map @endpoints-tcp`
 *
 * ClientIP affinity belongs to the service PORT (semantics 3.7), so a sticky port has chains of
 * its own, numbered per family (`affinity-<K>-…`):
 * - one record chain, reached after DNAT through `affinity-ips` / `affinity-nodeports` by the
 *   ORIGINAL destination of the connection (any address of the port): it writes
 *   `client . H` with the Service's timeout, H = `jhash endpoint address . endpoint port seed K`;
 * - one lookup chain per endpoint list it uses: a rule per endpoint, `client . H` (H computed
 *   here, as the kernel does) in `@affinity` DNATs straight to that endpoint; otherwise the
 *   shared random pick.
 * The entry names the endpoint (of this port), not a slot: it holds whichever address or list the
 * client uses next, and survives any scaling of the other endpoints. One constant per lookup rule
 * keeps them cheap to load (a key spelling the endpoint out loaded measurably slower at s10k:
 * docs/PERFORMANCE.md, "Figures behind choices in the code").
 */
import type { RenderContext } from './context.js';
import { AFFINITY_HASH_MOD, endpointHash } from './jhash.js';
import {
  affinityChain,
  affinityRecordChain,
  endpointsMap,
  pickChain,
  SET,
  SHORT_CIRCUIT_OFFSET,
  type AffinityList,
  type Pick,
} from './names.js';
import type { ChainSpec } from './types.js';

/** The expression the endpoint keys start with. */
function serviceAddress(ctx: RenderContext, pick: Pick): string {
  const { addr, anyAddr } = ctx.syntax;
  return pick.nodePort ? `${addr} daddr & ${anyAddr}` : `${addr} daddr`;
}

/** The shared chain picking one of `pick.n` endpoints at random. */
export function pickSelection(ctx: RenderContext, pick: Pick): ChainSpec {
  const name = pickChain(pick);
  let chain = ctx.chainCache.get(name);
  if (chain === undefined) {
    const offset = pick.shortCircuit ? ` offset ${SHORT_CIRCUIT_OFFSET}` : '';
    const { addr } = ctx.syntax;
    const rule = `meta l4proto ${pick.proto} dnat ${addr} to ${serviceAddress(ctx, pick)} . th dport . numgen random mod ${pick.n}${offset} map @${endpointsMap(pick.proto)}`;
    ctx.chainCache.set(name, (chain = { name, rules: [rule] }));
  }
  return chain;
}

export interface StickyEndpoint {
  readonly ip: string;
  readonly port: number;
}

/** A constant inside a concatenation (nft 1.0.6 takes no literal there): the field masked to 0, or-ed. */
function constant(field: string, zero: string, value: string | number): string {
  return `${field} & ${zero} | ${value}`;
}

/** `client . H`, the key of one sticky port's entry for one endpoint, as a lookup sees it. */
function affinityLookupKey(ctx: RenderContext, port: number, ep: StickyEndpoint): string {
  return `${ctx.syntax.addr} saddr . ${constant('meta mark', '0x0', endpointHash(ctx.syntax.family, ep.ip, ep.port, port))}`;
}

function dnatTo(ctx: RenderContext, ep: StickyEndpoint): string {
  const { addr } = ctx.syntax;
  return `dnat ${addr} to ${addr === 'ip6' ? `[${ep.ip}]` : ep.ip}:${ep.port}`;
}

/**
 * One sticky port's lookup chain for one list: `first` (the masquerade marking an entry chain
 * would otherwise add), then one rule per endpoint, then the shared random pick. Never cached:
 * its rules name the endpoints and change with them.
 */
export function affinitySelection(
  ctx: RenderContext,
  pick: Pick,
  port: number,
  list: AffinityList,
  endpoints: readonly StickyEndpoint[],
  first: readonly string[] = [],
): ChainSpec {
  const lookups = endpoints.map(
    (ep) => `${affinityLookupKey(ctx, port, ep)} @${SET.affinity} meta l4proto ${pick.proto} ${dnatTo(ctx, ep)}`,
  );
  return { name: affinityChain(port, list, pick.nodePort), rules: [...first, ...lookups, `goto ${pickChain(pick)}`] };
}

/** Writes `client . H` after DNAT (the destination is then the endpoint) with the timeout. */
export function affinityRecord(ctx: RenderContext, port: number, timeoutSeconds: number): ChainSpec {
  const { addr } = ctx.syntax;
  const key = `${addr} saddr . jhash ${addr} daddr . th dport mod ${AFFINITY_HASH_MOD} seed ${port}`;
  return { name: affinityRecordChain(port), rules: [`update @${SET.affinity} { ${key} timeout ${timeoutSeconds}s }`] };
}
