import type { ServiceKey } from '../model/types.js';
import type { LocalService } from './types.js';

/** A Service of a node-local state by key: `services` is sorted by key with `<` (SortedServices), so a binary search. */
export function findService(services: readonly LocalService[], key: ServiceKey): LocalService | undefined {
  let lo = 0;
  let hi = services.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const candidate = services[mid] as LocalService;
    if (candidate.key === key) return candidate;
    if (candidate.key < key) lo = mid + 1;
    else hi = mid - 1;
  }
  return undefined;
}
