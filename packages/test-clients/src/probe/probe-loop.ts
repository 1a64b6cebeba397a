import { setMaxListeners } from 'node:events';
import type { Cancel, Clock } from '../util/clock.js';
import type { DialError, Dialer, DialResult } from './dialer.js';
import type { SuccessMatcher } from './matcher.js';

/** Probe until the target answers (`reachable`), or until it stops answering (`unreachable`). */
export type ProbeGoal = 'reachable' | 'unreachable';

/** `success`: connected and the matcher accepted; `mismatch`: connected, but someone else answered. */
export type AttemptResult = 'success' | 'mismatch' | DialError;

export interface AttemptRecord {
  readonly startedAt: number;
  /** When the deciding connection finished (for a success: when it was accepted). */
  readonly endedAt: number;
  readonly result: AttemptResult;
  readonly reply?: string;
}

/**
 * When attempts start. `interval`: on a fixed grid, one every `intervalMs`, overlapping as needed
 * (kpng's precise mode). `sequential`: one at a time, the next as soon as the previous ended but no
 * sooner than `intervalMs` after the previous one started (upstream's curl after curl, with a floor
 * so a rejecting target is not probed in a tight spin).
 */
export type ProbeCadence = 'interval' | 'sequential';

export interface ProbeLoopOptions {
  readonly dialer: Dialer;
  readonly clock: Clock;
  readonly host: string;
  readonly port: number;
  readonly goal: ProbeGoal;
  readonly matcher: SuccessMatcher;
  /** `interval` (default): an attempt starts every interval; `sequential`: see {@link ProbeCadence}. */
  readonly cadence?: ProbeCadence;
  readonly intervalMs: number;
  readonly attemptTimeoutMs: number;
  /** Epoch ms (client clock) after which the target counts as never reached; undefined: none. */
  readonly deadline?: number | undefined;
  /** Parallel connections per attempt (a Service with many endpoints answers from one at random). */
  readonly connectionsPerAttempt?: number;
  readonly signal?: AbortSignal;
  readonly onAttempt?: (attempt: AttemptRecord) => void;
  /** A tick on which no attempt started: the in-flight bound was reached (a late dialer). */
  readonly onSkip?: () => void;
}

export type ProbeOutcome =
  | {
      readonly status: 'done';
      /**
       * `reachable`: when the first accepted answer arrived. `unreachable`: when the first failing
       * attempt started (a dropped SYN was dropped when sent, not when the timeout noticed it).
       */
      readonly at: number;
      readonly attempts: number;
      readonly reply?: string;
    }
  | { readonly status: 'deadline'; readonly attempts: number; readonly lastResult?: AttemptResult }
  | { readonly status: 'stopped'; readonly attempts: number };

/**
 * The most attempts of one target in flight at once with the `interval` cadence:
 * ceil(timeout / interval) + 1, what a dialer that decides each attempt within its timeout keeps
 * open on a dropping datapath (no tick skipped). When the dialer is slower than that (it runs in
 * another process that is behind, or on a busy event loop), the loop starts no more: a tick that
 * finds the bound reached is skipped and counted (`onSkip`), so the attempt rate cannot pile up
 * on a dialer that is already late (the congestion collapse that turned a busy helper's answers
 * into a stream of client-side timeouts).
 */
export function maxAttemptsInFlight(intervalMs: number, attemptTimeoutMs: number): number {
  return Math.ceil(attemptTimeoutMs / Math.max(1, intervalMs)) + 1;
}

/**
 * How long past its timeout the loop waits for the dialer's verdict before abandoning an attempt
 * (`unanswered`). The dialer applies the timeout where the connection is, from when it really
 * started; its verdict can reach the loop late (a pipe, a busy loop), and a late-read answer is an
 * answer, not a timeout. This only ends attempts of a dialer that never answers.
 */
export function dialerGraceMs(attemptTimeoutMs: number): number {
  return Math.max(attemptTimeoutMs, 1_000);
}

interface InFlight {
  readonly seq: number;
  readonly startedAt: number;
  /** When the loop abandons the attempt as `unanswered` if the dialer has not decided it. */
  readonly expiresAt: number;
  readonly abort: AbortController;
}

/**
 * The probe loop. Unlike upstream (one curl after another, no pause: a tight spin on datapaths
 * that reject, 1 s resolution on ones that drop), with the `interval` cadence attempts start on a
 * fixed grid and overlap, so the resolution is the interval whatever the datapath does (accept,
 * reject or drop); every attempt is bounded, and so is the whole loop (`deadline`). The
 * `sequential` cadence reproduces upstream's resolution on purpose (see {@link ProbeCadence}).
 *
 * For `unreachable`, attempts are judged in the order they started: the answer is the first
 * attempt that failed after all earlier ones succeeded.
 */
export function probeUntil(options: ProbeLoopOptions): Promise<ProbeOutcome> {
  const { clock, intervalMs, attemptTimeoutMs, deadline, goal } = options;
  const sequential = options.cadence === 'sequential';
  const perAttempt = Math.max(1, options.connectionsPerAttempt ?? 1);
  const cap = sequential ? 1 : maxAttemptsInFlight(intervalMs, attemptTimeoutMs);

  return new Promise<ProbeOutcome>((resolve) => {
    let finished = false;
    let attempts = 0;
    let launched = 0;
    let nextToJudge = 0;
    let lastResult: AttemptResult | undefined;
    let timer: Cancel | undefined;
    /** The grid point of the next attempt (interval), or the earliest start of the next (sequential). */
    let nextAt = clock.now();
    const inFlight = new Map<number, InFlight>();
    const results = new Map<number, AttemptRecord>();

    const finish = (outcome: ProbeOutcome): void => {
      if (finished) return;
      finished = true;
      timer?.cancel();
      options.signal?.removeEventListener('abort', onStop);
      for (const attempt of inFlight.values()) attempt.abort.abort();
      inFlight.clear();
      resolve(outcome);
    };
    const onStop = (): void => finish({ status: 'stopped', attempts });

    const completed = (seq: number, record: AttemptRecord): void => {
      if (!inFlight.delete(seq) || finished) return; // already retired (timed out) or over
      attempts += 1;
      lastResult = record.result;
      options.onAttempt?.(record);
      if (goal === 'reachable') {
        if (record.result === 'success')
          return finish({
            status: 'done',
            at: record.endedAt,
            attempts,
            ...(record.reply !== undefined ? { reply: record.reply } : {}),
          });
      } else {
        results.set(seq, record);
        for (let next = results.get(nextToJudge); next !== undefined; next = results.get(nextToJudge)) {
          results.delete(nextToJudge);
          nextToJudge += 1;
          if (next.result !== 'success' && next.result !== 'mismatch')
            return finish({ status: 'done', at: next.startedAt, attempts });
        }
      }
      if (sequential) schedule(); // the next attempt may start now
    };

    /** Abandons attempts whose dialer gave no verdict within the timeout plus its grace. */
    const abandonUnanswered = (now: number): void => {
      for (const attempt of [...inFlight.values()]) {
        if (attempt.expiresAt > now) continue;
        attempt.abort.abort();
        completed(attempt.seq, { startedAt: attempt.startedAt, endedAt: now, result: 'unanswered' });
        if (finished) return;
      }
    };

    const launch = (now: number): void => {
      const seq = launched++;
      const timeoutMs =
        deadline === undefined ? attemptTimeoutMs : Math.max(1, Math.min(attemptTimeoutMs, deadline - now));
      const abort = new AbortController();
      setMaxListeners(0, abort.signal);
      inFlight.set(seq, { seq, startedAt: now, expiresAt: now + timeoutMs + dialerGraceMs(timeoutMs), abort });
      const request = options.matcher.request?.(options.host, options.port);
      const dials = Array.from({ length: perAttempt }, () =>
        options.dialer
          .dial({
            host: options.host,
            port: options.port,
            timeoutMs,
            readReply: options.matcher.needsReply,
            ...(request !== undefined ? { send: request } : {}),
            signal: abort.signal,
          })
          .catch((error: unknown): DialResult => ({
            ok: false,
            error: error instanceof Error ? error.message : String(error),
          }))
          .then((result) => ({ result, at: result.at ?? clock.now() })),
      );
      void Promise.all(dials).then((ended) => completed(seq, judge(now, ended, options.matcher)));
    };

    /** Arms the timer for the next event: a grid point (or earliest start), an expiry, the deadline. */
    const schedule = (): void => {
      if (finished) return;
      timer?.cancel();
      const now = clock.now();
      const events = [...[...inFlight.values()].map((a) => a.expiresAt)];
      if (!sequential || inFlight.size === 0) events.push(nextAt);
      if (deadline !== undefined) events.push(deadline);
      timer = clock.setTimeout(tick, Math.max(0, Math.min(...events) - now));
    };

    const tick = (): void => {
      if (finished) return;
      const now = clock.now();
      abandonUnanswered(now);
      if (finished) return;
      if (deadline !== undefined && now >= deadline)
        return finish({ status: 'deadline', attempts, ...(lastResult !== undefined ? { lastResult } : {}) });
      if (now >= nextAt && (!sequential || inFlight.size === 0)) {
        if (inFlight.size < cap) launch(now);
        else options.onSkip?.();
        // Stay on the grid; after a stall (a busy event loop) resume from now rather than burst.
        nextAt = nextAt + intervalMs > now ? nextAt + intervalMs : now + intervalMs;
      }
      schedule();
    };

    if (options.signal?.aborted) return onStop();
    options.signal?.addEventListener('abort', onStop, { once: true });
    tick();
  });
}

/** One attempt's verdict from its connections: any accepted answer wins, then any answer at all. */
function judge(
  startedAt: number,
  ended: readonly { result: DialResult; at: number }[],
  matcher: SuccessMatcher,
): AttemptRecord {
  const answered = ended.filter((e): e is { result: { ok: true; reply?: string }; at: number } => e.result.ok);
  const accepted = answered.filter((e) => matcher.accepts(e.result.reply)).sort((a, b) => a.at - b.at)[0];
  const last = Math.max(...ended.map((e) => e.at));
  const withReply = (e: { result: { reply?: string } }) =>
    e.result.reply !== undefined ? { reply: e.result.reply } : {};
  if (accepted) return { startedAt, endedAt: accepted.at, result: 'success', ...withReply(accepted) };
  const first = answered[0];
  if (first) return { startedAt, endedAt: last, result: 'mismatch', ...withReply(first) };
  const failure = ended[0]?.result;
  return { startedAt, endedAt: last, result: failure && !failure.ok ? failure.error : 'error' };
}
