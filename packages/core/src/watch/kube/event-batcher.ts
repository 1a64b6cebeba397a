import type { ModelEvent } from '../../model/types.js';
import { nextTurn, type Scheduler } from '../../util/next-turn.js';

/** Produces one model event from a raw object (conversion), or nothing. */
export type Conversion = () => ModelEvent | undefined;

export interface EventBatcherOptions {
  readonly schedule?: Scheduler;
  /** Milliseconds of conversion per turn before the rest waits for the next turn (default 10). */
  readonly budgetMs?: number;
  /** Millisecond clock (default `performance.now`). */
  readonly now?: () => number;
}

type Entry = { readonly convert: Conversion } | { readonly after: () => void };

/**
 * Converts and delivers a source's events off the informers' callbacks, in order, a time budget
 * per event-loop turn. Events that arrive in the same turn (one chunk of watch events) become one
 * model transaction; an informer's initial list (thousands of synchronous `add` callbacks) becomes
 * one transaction per turn's budget, with a yield to the event loop between them, so health and
 * metrics requests are answered while a big cluster is loaded (the model publishes nothing until
 * every kind is synced, so these intermediate transactions cost nothing downstream).
 */
export class EventBatcher {
  readonly #deliver: (batch: readonly ModelEvent[]) => void;
  readonly #schedule: Scheduler;
  readonly #budgetMs: number;
  readonly #now: () => number;
  #queue: (Entry | undefined)[] = [];
  #head = 0;
  #scheduled = false;
  /** What delivering one event cost lately (the model's apply, and downstream once synced), ms. */
  #deliverMsPerEvent = 0;

  constructor(deliver: (batch: readonly ModelEvent[]) => void, options: EventBatcherOptions = {}) {
    this.#deliver = deliver;
    this.#schedule = options.schedule ?? nextTurn;
    this.#budgetMs = options.budgetMs ?? 10;
    this.#now = options.now ?? (() => performance.now());
  }

  /** Queues one event's conversion; it runs in a later turn, after everything queued before it. */
  push(convert: Conversion): void {
    this.#enqueue({ convert });
  }

  /** Runs `fn` once everything queued before has been delivered (e.g. to report a kind as synced). */
  afterPending(fn: () => void): void {
    this.#enqueue({ after: fn });
  }

  /** How many conversions and callbacks wait. */
  get pending(): number {
    return this.#queue.length - this.#head;
  }

  /** Drops what is pending: the source stopped and nothing more may reach the sink. */
  discard(): void {
    this.#queue = [];
    this.#head = 0;
  }

  #enqueue(entry: Entry): void {
    this.#queue.push(entry);
    if (this.#scheduled) return;
    this.#scheduled = true;
    this.#schedule(() => this.#drain());
  }

  #deliverTimed(batch: readonly ModelEvent[]): void {
    if (batch.length === 0) return;
    const start = this.#now();
    this.#deliver(batch);
    const perEvent = (this.#now() - start) / batch.length;
    this.#deliverMsPerEvent = (this.#deliverMsPerEvent + perEvent) / 2;
  }

  #drain(): void {
    this.#scheduled = false;
    const start = this.#now();
    let batch: ModelEvent[] = [];
    let converted = 0;
    while (this.#head < this.#queue.length) {
      const entry = this.#queue[this.#head]!;
      // Let go of the raw object now, not when the whole queue is done.
      this.#queue[this.#head++] = undefined;
      if ('convert' in entry) {
        const event = entry.convert();
        if (event) batch.push(event);
        // The budget covers the conversions and the delivery of the batch they make. Reading the
        // clock costs too: look every 32 conversions.
        if (++converted % 32 === 0 && this.#now() - start + batch.length * this.#deliverMsPerEvent >= this.#budgetMs)
          break;
      } else {
        this.#deliverTimed(batch);
        batch = [];
        entry.after();
      }
    }
    this.#deliverTimed(batch);
    if (this.#head < this.#queue.length) {
      this.#scheduled = true;
      this.#schedule(() => this.#drain());
    } else {
      this.#queue = [];
      this.#head = 0;
    }
  }
}
