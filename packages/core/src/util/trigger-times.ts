/**
 * Trigger times (`endpoints.kubernetes.io/last-change-trigger-time`) kept per Service until a sync
 * observes them. While syncs keep failing they would accumulate, one per change, for as long as the
 * failures last: a list holds at most {@link MAX_TRIGGER_TIMES} times, the oldest ones (the largest
 * latencies) and, in its last place, the newest.
 */
export const MAX_TRIGGER_TIMES = 64;

/** Appends `times` to `into` within the bound (no spread: a long list would overflow the stack). */
export function appendTriggerTimes(into: number[], times: readonly number[]): void {
  for (const t of times) {
    if (into.length < MAX_TRIGGER_TIMES) into.push(t);
    else if (t > into[MAX_TRIGGER_TIMES - 1]!) into[MAX_TRIGGER_TIMES - 1] = t;
  }
}

/** Adds `times` to the list of `key` in `map`, within the bound. */
export function addTriggerTimes<K>(map: Map<K, number[]>, key: K, times: readonly number[]): void {
  let list = map.get(key);
  if (!list) map.set(key, (list = []));
  appendTriggerTimes(list, times);
}
