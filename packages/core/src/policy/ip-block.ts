import { formatCIDR, parseCIDR, type CIDR } from '../util/ip.js';
import type { IPBlock } from './types.js';

function bit(bytes: readonly number[], index: number): number {
  return ((bytes[index >> 3] as number) >> (7 - (index & 7))) & 1;
}

/** True when `outer` contains every address of `inner` (same family). */
function covers(outer: CIDR, inner: CIDR): boolean {
  if (outer.family !== inner.family || outer.prefixLength > inner.prefixLength) return false;
  for (let i = 0; i < outer.prefixLength; i++) if (bit(outer.network, i) !== bit(inner.network, i)) return false;
  return true;
}

function halves(cidr: CIDR): readonly [CIDR, CIDR] {
  const prefixLength = cidr.prefixLength + 1;
  const high = [...cidr.network];
  const index = cidr.prefixLength;
  high[index >> 3] = (high[index >> 3] as number) | (1 << (7 - (index & 7)));
  return [
    { family: cidr.family, network: cidr.network, prefixLength },
    { family: cidr.family, network: high, prefixLength },
  ];
}

function subtract(block: CIDR, excepts: readonly CIDR[], out: CIDR[]): void {
  const overlapping = excepts.filter((except) => covers(block, except) || covers(except, block));
  if (overlapping.length === 0) {
    out.push(block);
    return;
  }
  if (overlapping.some((except) => covers(except, block))) return;
  for (const half of halves(block)) subtract(half, overlapping, out);
}

/**
 * An ipBlock as the disjoint CIDRs it allows: `cidr` with every `except` cut out (the API requires
 * exceptions inside `cidr`; one outside is ignored). The result grows with the exceptions' prefix
 * lengths only (at most one CIDR per bit of each exception below `cidr`'s prefix).
 */
export function ipBlockCIDRs(block: IPBlock): readonly string[] {
  const cidr = parseCIDR(block.cidr);
  if (cidr === undefined) return [];
  const excepts = block.except.map(parseCIDR).filter((except): except is CIDR => except !== undefined);
  const out: CIDR[] = [];
  subtract(cidr, excepts, out);
  return out.map(formatCIDR);
}
