import type { ModelEvent } from '../../model/types.js';

export type Scheduler = (fn: () => void) => void;

/** After the I/O callbacks of the current event-loop turn: events read from one socket read land together. */
export const nextTurn: Scheduler = (fn) => void setImmediate(fn);

/**
 * Coalesces events that arrive in the same event-loop turn into one batch, so that an informer's
 * initial list (thousands of synchronous `add` callbacks) or one chunk of watch events becomes one
 * model transaction instead of one per object. Order is kept: a batch applies in arrival order.
 */
export class EventBatcher {
  private pending: ModelEvent[] = [];
  private scheduled = false;

  constructor(
    private readonly deliver: (batch: readonly ModelEvent[]) => void,
    private readonly schedule: Scheduler = nextTurn,
  ) {}

  push(event: ModelEvent): void {
    this.pending.push(event);
    if (this.scheduled) return;
    this.scheduled = true;
    this.schedule(() => {
      this.scheduled = false;
      this.flush();
    });
  }

  /** Delivers what is pending now (e.g. before reporting a kind as synced). */
  flush(): void {
    if (this.pending.length === 0) return;
    const batch = this.pending;
    this.pending = [];
    this.deliver(batch);
  }

  /** Drops what is pending: the source stopped and nothing more may reach the sink. */
  discard(): void {
    this.pending = [];
  }
}
