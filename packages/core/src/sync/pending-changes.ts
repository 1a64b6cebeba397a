import type { ServiceKey } from '../model/types.js';
import type { StateChanges } from '../nodeview/types.js';
import { addTriggerTimes } from '../util/trigger-times.js';

/**
 * What changed since the last successful sync, accumulated over every state offered meanwhile:
 * the union of updated Services (`undefined`, "everything", absorbs any set), trigger times
 * concatenated per Service, `nodeChanged` OR-ed.
 */
export class PendingChanges {
  /** `undefined` means every Service. */
  private updatedServices: Set<ServiceKey> | undefined = new Set();
  private triggerTimes = new Map<ServiceKey, number[]>();
  private nodeChanged = false;
  private policyChangedAt: number | undefined;

  add(changes: StateChanges): void {
    if (changes.updatedServices === undefined) this.updatedServices = undefined;
    else if (this.updatedServices) for (const key of changes.updatedServices) this.updatedServices.add(key);
    for (const [key, times] of changes.triggerTimes) {
      addTriggerTimes(this.triggerTimes, key, times);
    }
    this.nodeChanged ||= changes.nodeChanged;
    if (changes.policyChangedAt !== undefined)
      this.policyChangedAt = Math.min(this.policyChangedAt ?? Infinity, changes.policyChangedAt);
  }

  /** Nothing accumulated since the last `take`. */
  isEmpty(): boolean {
    return (
      this.updatedServices !== undefined &&
      this.updatedServices.size === 0 &&
      this.triggerTimes.size === 0 &&
      !this.nodeChanged &&
      this.policyChangedAt === undefined
    );
  }

  /** Hands the accumulated changes over and starts accumulating afresh. */
  take(): StateChanges {
    const taken: StateChanges = {
      ...(this.updatedServices ? { updatedServices: this.updatedServices } : {}),
      triggerTimes: this.triggerTimes,
      nodeChanged: this.nodeChanged,
      ...(this.policyChangedAt !== undefined ? { policyChangedAt: this.policyChangedAt } : {}),
    };
    this.updatedServices = new Set();
    this.triggerTimes = new Map();
    this.nodeChanged = false;
    this.policyChangedAt = undefined;
    return taken;
  }

  /**
   * Puts back changes taken for a sync that failed, ahead of those accumulated since, so the retry
   * covers both (and their trigger times stay in arrival order).
   */
  restore(earlier: StateChanges): void {
    const later = this.take();
    this.add(earlier);
    this.add(later);
  }
}
