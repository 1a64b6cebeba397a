/**
 * client-go's work queue (`k8s.io/client-go/util/workqueue`, semantics 5.3) for a single-threaded
 * event loop: a FIFO `queue`, a `dirty` set (needs processing) and a `processing` set (handed to a
 * worker, not yet `done`). The guarantees workers rely on:
 *   - an item is queued at most once, however often it is added;
 *   - an item is never handed to two workers at once;
 *   - an item added while it is being processed is processed again after `done`.
 * Items are compared with SameValueZero (`Set` semantics): use strings or numbers as keys.
 */
export class WorkQueue<T> {
  /** FIFO as an array plus a read index: `shift()` would make draining a large queue quadratic. */
  private queue: T[] = [];
  private head = 0;
  private readonly dirty = new Set<T>();
  private readonly processing = new Set<T>();
  /** Workers blocked in `get()`, oldest first. */
  private readonly waiters: Array<(item: T | undefined) => void> = [];
  private readonly drainWaiters: Array<() => void> = [];
  private shuttingDown = false;

  /** Marks `item` as needing processing. Ignored during shutdown. */
  add(item: T): void {
    if (this.shuttingDown || this.dirty.has(item)) return;
    this.dirty.add(item);
    // A running item is re-queued by `done`, never handed to a second worker.
    if (this.processing.has(item)) return;
    this.queue.push(item);
    this.handOut();
  }

  /**
   * The next item to process, waiting for one if the queue is empty. Resolves `undefined` once the
   * queue is shut down and empty (as client-go, items queued before the shutdown are still handed out).
   * The caller must call `done(item)` when it has finished with the item.
   */
  get(): Promise<T | undefined> {
    if (this.len() > 0) return Promise.resolve(this.take());
    if (this.shuttingDown) return Promise.resolve(undefined);
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Ends the processing of `item`; if it was added meanwhile, it is queued again. */
  done(item: T): void {
    this.processing.delete(item);
    if (this.dirty.has(item)) {
      this.queue.push(item);
      this.handOut();
    }
    if (this.processing.size === 0) this.releaseDrainWaiters();
  }

  /** Items waiting to be handed out (not counting the ones being processed). */
  len(): number {
    return this.queue.length - this.head;
  }

  isShuttingDown(): boolean {
    return this.shuttingDown;
  }

  /** Stops accepting items; blocked and future `get()` calls resolve `undefined` once the queue is empty. */
  shutDown(): void {
    if (this.shuttingDown) return;
    this.shuttingDown = true;
    this.onShutDown();
    // Waiters exist only while the queue is empty, so none of them is owed an item.
    for (const waiter of this.waiters.splice(0)) waiter(undefined);
  }

  /** Shuts down, then resolves once every item handed out so far is `done`. */
  shutDownWithDrain(): Promise<void> {
    this.shutDown();
    if (this.processing.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.drainWaiters.push(resolve));
  }

  /** Hook for queues layered on top (e.g. cancelling delay timers). */
  protected onShutDown(): void {}

  private handOut(): void {
    while (this.waiters.length > 0 && this.len() > 0) {
      this.waiters.shift()!(this.take());
    }
  }

  private take(): T {
    const item = this.queue[this.head++]!;
    if (this.head === this.queue.length) {
      this.queue = [];
      this.head = 0;
    } else if (this.head >= 1024 && this.head * 2 >= this.queue.length) {
      this.queue = this.queue.slice(this.head);
      this.head = 0;
    }
    this.processing.add(item);
    this.dirty.delete(item);
    return item;
  }

  private releaseDrainWaiters(): void {
    for (const resolve of this.drainWaiters.splice(0)) resolve();
  }
}
