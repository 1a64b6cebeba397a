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
 * every kind is synced, so these intermediate transactions cost nothing downstream). When the
 * conversions alone used a turn's budget (one huge object), their batch is delivered at the start of
 * the next turn instead, and no conversion follows it there if the delivery used that turn too.
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
  /** Events converted in a turn whose budget the conversions used up: delivered first in the next. */
  #held: ModelEvent[] = [];

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
    this.#held = [];
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
    if (this.#held.length > 0) {
      const held = this.#held;
      this.#held = [];
      this.#deliverTimed(held);
      // The delivery used the turn (a huge object's node view): the conversions wait for the next.
      if (this.#now() - start >= this.#budgetMs) {
        this.#scheduleRest();
        return;
      }
    }
    let batch: ModelEvent[] = [];
    let converted = 0;
    while (this.#head < this.#queue.length) {
      const entry = this.#queue[this.#head]!;
      // The conversions before a callback used the turn: their delivery, and it, wait for the next.
      if (!('convert' in entry) && batch.length > 0 && this.#now() - start >= this.#budgetMs) break;
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
    // The conversions alone used the turn's budget (one object of 10,000 endpoints can): the model
    // and the node view get the batch in the next turn, so the two costs do not add up in one stall.
    if (batch.length > 0 && this.#now() - start >= this.#budgetMs) this.#held = batch;
    else this.#deliverTimed(batch);
    this.#scheduleRest();
  }

  /** Another turn when anything waits; else the queue starts over. */
  #scheduleRest(): void {
    if (this.#held.length > 0 || this.#head < this.#queue.length) {
      this.#scheduled = true;
      this.#schedule(() => this.#drain());
    } else {
      this.#queue = [];
      this.#head = 0;
    }
  }
}
