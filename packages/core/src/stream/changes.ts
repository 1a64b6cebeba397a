import type { ServiceKey } from '../model/types.js';
import type { StateChanges } from '../nodeview/types.js';
import { addTriggerTimes } from '../util/trigger-times.js';

/**
 * Folds the changes of consecutive revisions (oldest first) into what changed across all of them,
 * so a client that skipped revisions still learns every Service that moved and every trigger time.
 * An entry without `updatedServices` ("everything") makes the union "everything".
 */
export function unionChanges(list: readonly StateChanges[]): StateChanges {
  if (list.length === 1) return list[0]!;
  let everything = false;
  const updated = new Set<ServiceKey>();
  let nodeChanged = false;
  for (const c of list) {
    nodeChanged ||= c.nodeChanged;
    if (everything) continue;
    if (c.updatedServices === undefined) everything = true;
    else for (const key of c.updatedServices) updated.add(key);
  }
  const triggerTimes = mergeTriggerTimes(list);
  const policy = earliestPolicyChange(list);
  return everything
    ? { triggerTimes, nodeChanged, ...policy }
    : { updatedServices: updated, triggerTimes, nodeChanged, ...policy };
}

/** The earliest policy change of `list`, as a `StateChanges` part (empty: none). */
function earliestPolicyChange(list: readonly StateChanges[]): { policyChangedAt?: number } {
  let at: number | undefined;
  for (const c of list) if (c.policyChangedAt !== undefined) at = Math.min(at ?? Infinity, c.policyChangedAt);
  return at === undefined ? {} : { policyChangedAt: at };
}

/** "Everything changed", keeping the trigger times (and node flag) of what the server still knows. */
export function fullChanges(retained: readonly StateChanges[]): StateChanges {
  let nodeChanged = false;
  for (const c of retained) nodeChanged ||= c.nodeChanged;
  return { triggerTimes: mergeTriggerTimes(retained), nodeChanged, ...earliestPolicyChange(retained) };
}

/** Keeps only trigger times after `since` (epoch ms): older ones predate the consumer (kube-proxy's start-time rule). */
export function triggerTimesAfter(changes: StateChanges, since: number): StateChanges {
  let stale = false;
  for (const times of changes.triggerTimes.values()) if (times.some((t) => t <= since)) stale = true;
  if (!stale) return changes;
  const kept = new Map<ServiceKey, readonly number[]>();
  for (const [svc, times] of changes.triggerTimes) {
    const fresh = times.filter((t) => t > since);
    if (fresh.length > 0) kept.set(svc, fresh);
  }
  return { ...changes, triggerTimes: kept };
}

function mergeTriggerTimes(list: readonly StateChanges[]): ReadonlyMap<ServiceKey, readonly number[]> {
  const nonEmpty = list.filter((c) => c.triggerTimes.size > 0);
  if (nonEmpty.length === 0) return new Map();
  if (nonEmpty.length === 1) return nonEmpty[0]!.triggerTimes;
  const merged = new Map<ServiceKey, number[]>();
  for (const c of nonEmpty) {
    for (const [svc, times] of c.triggerTimes) {
      addTriggerTimes(merged, svc, times);
    }
  }
  return merged;
}
