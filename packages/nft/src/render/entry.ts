/**
 * Entry chains: what a dispatch element jumps to before a pick, when the traffic needs more than
 * an endpoint choice. All of them are shared by every service with the same picks.
 *
 * cluster-<pick>   ClusterIP traffic marked for masquerading (masqueradeAll, or not from a local pod)
 * external-<pick>  external traffic under the Cluster policy: always masqueraded
 * local-<L>.<C>    externalTrafficPolicy Local: local pods and the host short-circuit to the
 *                  cluster-wide list C (the host also masqueraded), everyone else gets L or a drop
 */
import type { RenderContext } from './context.js';
import { CHAIN, clusterEntryChain, externalEntryChain, localEntryChain, verdict, type Target } from './names.js';
import type { ChainSpec } from './types.js';

/** Marks the packet for masquerading in postrouting. */
export const MARK = `jump ${CHAIN.markForMasquerade}`;

/** Entry chains depend on their name only; those of a sticky port's chains go with the port. */
function cached(ctx: RenderContext, name: string, rules: () => string[]): ChainSpec {
  if (name.includes('affinity-')) return { name, rules: rules() };
  let chain = ctx.chainCache.get(name);
  if (chain === undefined) ctx.chainCache.set(name, (chain = { name, rules: rules() }));
  return chain;
}

/** ClusterIP: the pick itself when nothing needs masquerading, else a cluster- chain. */
export function clusterEntry(ctx: RenderContext, pick: string): { target: Target; chain?: ChainSpec } {
  const masquerade = ctx.clusterMasquerade;
  if (masquerade === undefined) return { target: { chain: pick } };
  const name = clusterEntryChain(pick);
  return { target: { chain: name }, chain: cached(ctx, name, () => [masquerade, `goto ${pick}`]) };
}

export function externalEntry(ctx: RenderContext, pick: string): { target: Target; chain: ChainSpec } {
  const name = externalEntryChain(pick);
  return { target: { chain: name }, chain: cached(ctx, name, () => [MARK, `goto ${pick}`]) };
}

export function localEntry(
  ctx: RenderContext,
  local: Target,
  shortCircuit: Target,
): { target: Target; chain: ChainSpec } {
  const name = localEntryChain(local, shortCircuit);
  const rules = (): string[] => [
    ...(ctx.detector === undefined ? [] : [`${ctx.detector.match} ${verdict(shortCircuit)}`]),
    `fib saddr type local ${MARK}`,
    `fib saddr type local ${verdict(shortCircuit)}`,
    verdict(local),
  ];
  return { target: { chain: name }, chain: cached(ctx, name, rules) };
}
