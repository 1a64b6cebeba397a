import type { ChainPriority } from './types.js';

/**
 * Standard hook priorities for the ip, ip6 and inet families (nft(8), "PRIORITY"). Rendering them
 * as numbers matters: nft 1.0.x refuses a name outside the hooks it was defined for (e.g.
 * `dstnat` on the input hook), which kube-proxy's `dstnat - 10` filter chains need.
 */
export const STANDARD_PRIORITIES: Readonly<Record<string, number>> = {
  raw: -300,
  mangle: -150,
  dstnat: -100,
  filter: 0,
  security: 50,
  srcnat: 100,
};

const NAMED = /^([a-z]+)(?:\s*([+-])\s*(\d+))?$/;

/** The numeric value of a priority, or undefined when it is neither a number nor a known name. */
export function priorityValue(priority: ChainPriority): number | undefined {
  if (typeof priority === 'number') return Number.isSafeInteger(priority) ? priority : undefined;
  const text = priority.trim();
  if (/^-?\d+$/.test(text)) return Number(text);
  const match = NAMED.exec(text);
  const base = match?.[1] === undefined ? undefined : STANDARD_PRIORITIES[match[1]];
  if (match === null || base === undefined) return undefined;
  const offset = match[3] === undefined ? 0 : Number(match[3]);
  return match[2] === '-' ? base - offset : base + offset;
}
