import type { Clock } from '../../util/clock.js';
import type { FailureClass } from './failure-class.js';
import { Backoff, type BackoffOptions as Schedule } from '@kpng/kit';

/** Overrides of a retry schedule (the kit's `Backoff`); what is left out keeps its default. */
export type BackoffOptions = Partial<Schedule>;

/** client-go's reflector backoff (`NewExponentialBackoffManager(800ms, 30s, 2min, 2.0, 1.0)`). */
export const REFLECTOR_BACKOFF: Required<BackoffOptions> = Object.freeze({
  initialMs: 800,
  maxMs: 30_000,
  factor: 2,
  resetAfterMs: 120_000,
  jitter: 1,
});

/**
 * While the API server is unreachable, how often to try again. The delay doubles from 200 ms to
 * 400 ms, plus up to 100% jitter: attempts every [400 ms, 800 ms) once the cap is reached, so a
 * watch is back within 0.8 s (plus one round trip) of the server answering, however long it was
 * away. client-go's 800 ms..30 s schedule would by then wait up to a minute; its purpose, sparing
 * a server that answers, does not apply to a connection refused by a server that is not there.
 * A server that answers with errors (5xx, 429) gets client-go's schedule (`answered`).
 */
export const UNREACHABLE_BACKOFF: Required<BackoffOptions> = Object.freeze({
  initialMs: 200,
  maxMs: 400,
  factor: 2,
  resetAfterMs: 120_000,
  jitter: 1,
});

/**
 * How many server-directed delays (`Retry-After`) are honoured in a row before the backoff takes
 * over again: client-go's REST client retries that often (`maxRetries`) before failing the call.
 */
export const MAX_RETRY_AFTER_IN_A_ROW = 10;

export interface ReconnectRoundsOptions {
  /** After error answers; client-go's reflector schedule by default. */
  readonly answered?: BackoffOptions;
  /** While nothing answers; `UNREACHABLE_BACKOFF` by default. */
  readonly unreachable?: BackoffOptions;
}

/**
 * One retry schedule shared by every kind of one source. A kind that fails joins the pending round
 * if there is one, else opens a round whose delay comes from the backoff of its failure class. All
 * kinds waiting in a round retry together, so Services and EndpointSlices come back at the same
 * moment instead of each after its own jittered delay (which, with independent backoffs, could
 * put one kind seconds behind the other after an outage).
 */
export class ReconnectRounds {
  private readonly backoffs: Record<FailureClass, Backoff>;
  private readonly answeredCapMs: number;
  private waiting: Array<() => void> = [];
  private round:
    { readonly timer: { cancel(): void }; readonly dueAt: number; readonly failure: FailureClass } | undefined;
  private retryAftersInARow = 0;

  constructor(
    private readonly clock: Clock,
    options: ReconnectRoundsOptions = {},
    random: () => number = Math.random,
  ) {
    this.answeredCapMs = options.answered?.maxMs ?? REFLECTOR_BACKOFF.maxMs;
    const time = { now: () => clock.monotonic(), random };
    this.backoffs = {
      answered: new Backoff({ ...REFLECTOR_BACKOFF, ...definedOnly(options.answered) }, time),
      unreachable: new Backoff({ ...UNREACHABLE_BACKOFF, ...definedOnly(options.unreachable) }, time),
    };
  }

  /**
   * Runs `retry` at the next round; returns how long until then (ms). `retryAfterMs` is the delay
   * the server asked for (`Retry-After` on a 429 or 5xx): a server that is starting or shedding
   * load says when it can take the request, and client-go honours that instead of backing off
   * (up to `MAX_RETRY_AFTER_IN_A_ROW` times, never longer than the answered cap).
   */
  retryLater(failure: FailureClass, retry: () => void, retryAfterMs?: number): number {
    this.waiting.push(retry);
    const now = this.clock.monotonic();
    const pending = this.round;
    if (pending && !(failure === 'unreachable' && pending.failure === 'answered')) return pending.dueAt - now;
    const delayMs = this.nextDelayMs(failure, retryAfterMs);
    // A watch cut off while other kinds wait out an error backoff (up to a minute) must not wait
    // that long too: the round is pulled in, and the kinds backing off retry early, once.
    if (pending && pending.dueAt <= now + delayMs) return pending.dueAt - now;
    pending?.timer.cancel();
    this.round = { timer: this.clock.setTimeout(() => this.fire(), delayMs), dueAt: now + delayMs, failure };
    return delayMs;
  }

  /**
   * The API server answered (a watch opened): the next outage starts from the short end of the
   * unreachable schedule. The answered schedule is forgiven only after its quiet period, as in
   * client-go, so a server that fails every other request still gets backed off.
   */
  reachable(): void {
    this.backoffs.unreachable.reset();
    this.retryAftersInARow = 0;
  }

  /** Drops every pending retry (the source is stopping). */
  cancel(): void {
    this.round?.timer.cancel();
    this.round = undefined;
    this.waiting = [];
  }

  private nextDelayMs(failure: FailureClass, retryAfterMs: number | undefined): number {
    if (retryAfterMs !== undefined && this.retryAftersInARow < MAX_RETRY_AFTER_IN_A_ROW) {
      this.retryAftersInARow += 1;
      return Math.max(0, Math.min(retryAfterMs, this.answeredCapMs));
    }
    // Rounded down: jitter stays below 100%, so a capped delay stays below twice the cap.
    return Math.floor(this.backoffs[failure].next());
  }

  private fire(): void {
    const retries = this.waiting;
    this.waiting = [];
    this.round = undefined;
    for (const retry of retries) retry();
  }
}

function definedOnly(options: BackoffOptions | undefined): BackoffOptions {
  return Object.fromEntries(Object.entries(options ?? {}).filter(([, v]) => v !== undefined));
}
