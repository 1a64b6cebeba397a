import type { Clock } from '../../util/clock.js';
import type { FailureClass } from './failure-class.js';
import { RestartBackoff, type BackoffOptions } from './restart-backoff.js';

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
  resetAfterMs: 120_000,
  jitter: 1,
});

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
  private readonly backoffs: Record<FailureClass, RestartBackoff>;
  private waiting: Array<() => void> = [];
  private round: { readonly timer: { cancel(): void }; readonly dueAt: number } | undefined;

  constructor(
    private readonly clock: Clock,
    options: ReconnectRoundsOptions = {},
    random: () => number = Math.random,
  ) {
    this.backoffs = {
      answered: new RestartBackoff(clock, options.answered, random),
      unreachable: new RestartBackoff(clock, options.unreachable, random, UNREACHABLE_BACKOFF),
    };
  }

  /** Runs `retry` at the next round; returns how long until then (ms). */
  retryLater(failure: FailureClass, retry: () => void): number {
    this.waiting.push(retry);
    const now = this.clock.monotonic();
    if (this.round) return this.round.dueAt - now;
    // Rounded down: jitter stays below 100%, so a capped delay stays below twice the cap.
    const delayMs = Math.floor(this.backoffs[failure].nextDelayMs());
    this.round = { timer: this.clock.setTimeout(() => this.fire(), delayMs), dueAt: now + delayMs };
    return delayMs;
  }

  /**
   * The API server answered (a watch opened): the next outage starts from the short end of the
   * unreachable schedule. The answered schedule is forgiven only after its quiet period, as in
   * client-go, so a server that fails every other request still gets backed off.
   */
  reachable(): void {
    this.backoffs.unreachable.reset();
  }

  /** Drops every pending retry (the source is stopping). */
  cancel(): void {
    this.round?.timer.cancel();
    this.round = undefined;
    this.waiting = [];
  }

  private fire(): void {
    const retries = this.waiting;
    this.waiting = [];
    this.round = undefined;
    for (const retry of retries) retry();
  }
}
