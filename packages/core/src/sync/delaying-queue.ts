import type { Clock } from '../util/clock.js';
import { MinHeap } from './min-heap.js';
import { WorkQueue } from './workqueue.js';

interface WaitingEntry<T> {
  readonly item: T;
  readonly readyAt: number;
  /** Insertion order: items ready at the same instant are added in the order they were scheduled. */
  readonly seq: number;
}

/**
 * client-go's delaying queue: `addAfter(item, ms)` adds the item once `ms` have passed. An item
 * scheduled twice keeps the earlier ready time. Instead of client-go's 10 s heartbeat, one clock
 * timer is armed for the earliest ready time, re-armed whenever that changes.
 */
export class DelayingQueue<T> extends WorkQueue<T> {
  /** The authoritative ready time per waiting item; heap entries that disagree are stale. */
  private readonly readyAt = new Map<T, number>();
  private readonly heap = new MinHeap<WaitingEntry<T>>(
    (a, b) => a.readyAt < b.readyAt || (a.readyAt === b.readyAt && a.seq < b.seq),
  );
  private nextSeq = 0;
  private timer: { readonly dueAt: number; cancel(): void } | undefined;

  constructor(protected readonly clock: Clock) {
    super();
  }

  addAfter(item: T, ms: number): void {
    if (this.isShuttingDown()) return;
    if (ms <= 0) {
      this.add(item);
      return;
    }
    const readyAt = this.clock.monotonic() + ms;
    const known = this.readyAt.get(item);
    if (known !== undefined && known <= readyAt) return;
    this.readyAt.set(item, readyAt);
    this.heap.push({ item, readyAt, seq: this.nextSeq++ });
    this.armTimer();
  }

  /** Items waiting for their delay to pass. */
  waitingLen(): number {
    return this.readyAt.size;
  }

  protected override onShutDown(): void {
    this.timer?.cancel();
    this.timer = undefined;
    this.readyAt.clear();
    this.heap.clear();
  }

  private addReadyItems(): void {
    this.timer = undefined;
    const now = this.clock.monotonic();
    for (let top = this.heap.peek(); top && top.readyAt <= now; top = this.heap.peek()) {
      this.heap.pop();
      if (this.readyAt.get(top.item) !== top.readyAt) continue; // superseded by an earlier time
      this.readyAt.delete(top.item);
      this.add(top.item);
    }
    this.armTimer();
  }

  private armTimer(): void {
    this.dropStaleHead();
    const next = this.heap.peek();
    if (!next) return;
    if (this.timer && this.timer.dueAt <= next.readyAt) return;
    this.timer?.cancel();
    const handle = this.clock.setTimeout(() => this.addReadyItems(), next.readyAt - this.clock.monotonic());
    this.timer = { dueAt: next.readyAt, cancel: () => handle.cancel() };
  }

  private dropStaleHead(): void {
    for (let top = this.heap.peek(); top && this.readyAt.get(top.item) !== top.readyAt; top = this.heap.peek()) {
      this.heap.pop();
    }
  }
}
