import type { ServiceKey } from '../model/types.js';
import type { LocalService } from './types.js';

/**
 * `NodeLocalState.services` is sorted by key, comparing UTF-16 code units with `<` (locale
 * independent; see SortedServices): a binary search finds one Service in O(log n).
 */
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
