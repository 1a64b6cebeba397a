/**
 * The shared chains that pick an endpoint. One chain per distinct (protocol, key kind, list,
 * endpoint count[, affinity timeout]) serves every service with that shape: the endpoints
 * themselves are elements of `endpoints-<proto>`, keyed by service address, port and slot.
 *
 * Plain:  `meta l4proto tcp dnat ip to ip daddr . th dport . numgen random mod 3 map @endpoints-tcp`
 * Sticky: one rule per slot looks the client up in `@affinity` (slot as a mark-typed constant),
 *         else a random slot; each slot chain refreshes the client's entry and DNATs to that slot.
 */
import type { RenderContext } from './context.js';
import { endpointsMap, pickChain, SET, SHORT_CIRCUIT_OFFSET, slotChain, type Pick } from './names.js';
import type { ChainSpec } from './types.js';

/** The expression the endpoint and affinity keys start with. */
function serviceAddress(ctx: RenderContext, pick: Pick): string {
  const { addr, anyAddr } = ctx.syntax;
  return pick.nodePort ? `${addr} daddr & ${anyAddr}` : `${addr} daddr`;
}

function offsetOf(pick: Pick): number {
  return pick.shortCircuit ? SHORT_CIRCUIT_OFFSET : 0;
}

/** A constant of the affinity set's `mark` type: the mark is masked to 0, then the slot or-ed in. */
function slotConstant(slot: number): string {
  return `meta mark & 0x0 | ${slot}`;
}

function affinityKey(ctx: RenderContext, pick: Pick, slot: number): string {
  return `${ctx.syntax.addr} saddr . ${serviceAddress(ctx, pick)} . meta l4proto . th dport . ${slotConstant(slot)}`;
}

function dnat(ctx: RenderContext, pick: Pick, index: string): string {
  return `meta l4proto ${pick.proto} dnat ${ctx.syntax.addr} to ${serviceAddress(ctx, pick)} . th dport . ${index} map @${endpointsMap(pick.proto)}`;
}

function cached(ctx: RenderContext, name: string, build: () => ChainSpec): ChainSpec {
  let chain = ctx.chainCache.get(name);
  if (chain === undefined) ctx.chainCache.set(name, (chain = build()));
  return chain;
}

/** The chains a pick needs: the pick chain first, then (sticky) its slot chains. */
export function selectionChains(ctx: RenderContext, pick: Pick): ChainSpec[] {
  const offset = offsetOf(pick);
  const random = `numgen random mod ${pick.n}${offset === 0 ? '' : ` offset ${offset}`}`;
  if (pick.affinity === undefined) {
    return [cached(ctx, pickChain(pick), () => ({ name: pickChain(pick), rules: [dnat(ctx, pick, random)] }))];
  }
  const timeout = pick.affinity;
  const slots = Array.from({ length: pick.n }, (_, i) => offset + i);
  const slotChains = slots.map((slot) =>
    cached(ctx, slotChain(pick, slot), () => ({
      name: slotChain(pick, slot),
      rules: [
        `update @${SET.affinity} { ${affinityKey(ctx, pick, slot)} timeout ${timeout}s }`,
        dnat(ctx, pick, `numgen inc mod 1 offset ${slot}`),
      ],
    })),
  );
  const sticky = cached(ctx, pickChain(pick), () => ({
    name: pickChain(pick),
    rules: [
      ...slots.map((slot) => `${affinityKey(ctx, pick, slot)} @${SET.affinity} goto ${slotChain(pick, slot)}`),
      `numgen random mod ${pick.n} vmap { ${slots.map((slot, i) => `${i} : goto ${slotChain(pick, slot)}`).join(', ')} }`,
    ],
  }));
  return [sticky, ...slotChains];
}
