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

export interface ProbeLoopOptions {
  readonly dialer: Dialer;
  readonly clock: Clock;
  readonly host: string;
  readonly port: number;
  readonly goal: ProbeGoal;
  readonly matcher: SuccessMatcher;
  /** A new attempt starts every interval, whether or not earlier ones have finished. */
  readonly intervalMs: number;
  readonly attemptTimeoutMs: number;
  /** Epoch ms (client clock) after which the target counts as never reached; undefined: none. */
  readonly deadline?: number | undefined;
  /** Parallel connections per attempt (a Service with many endpoints answers from one at random). */
  readonly connectionsPerAttempt?: number;
  /** Attempts allowed in flight at once; default ceil(timeout / interval), 1..16. */
  readonly maxInFlight?: number;
  readonly signal?: AbortSignal;
  readonly onAttempt?: (attempt: AttemptRecord) => void;
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

const MAX_IN_FLIGHT = 16;

/**
 * The probe loop. Unlike upstream (one curl after another, no pause: a tight spin on datapaths
 * that reject, 1 s resolution on ones that drop), attempts start on a fixed interval and may
 * overlap, so the resolution is the interval whatever the datapath does; every attempt is bounded,
 * and so is the whole loop (`deadline`).
 *
 * For `unreachable`, attempts are judged in the order they started: the answer is the first
 * attempt that failed after all earlier ones succeeded.
 */
export function probeUntil(options: ProbeLoopOptions): Promise<ProbeOutcome> {
  const { clock, intervalMs, attemptTimeoutMs, deadline, goal } = options;
  const perAttempt = Math.max(1, options.connectionsPerAttempt ?? 1);
  const maxInFlight = options.maxInFlight ?? Math.min(MAX_IN_FLIGHT, Math.max(1, Math.ceil(attemptTimeoutMs / intervalMs)));
  const stop = new AbortController();
  setMaxListeners(0, stop.signal); // one listener per dial in flight

  return new Promise<ProbeOutcome>((resolve) => {
    let finished = false;
    let attempts = 0;
    let inFlight = 0;
    let launched = 0;
    let nextToJudge = 0;
    let lastResult: AttemptResult | undefined;
    let timer: Cancel | undefined;
    let nextTickAt = clock.now();
    const results = new Map<number, AttemptRecord>();

    const finish = (outcome: ProbeOutcome): void => {
      if (finished) return;
      finished = true;
      timer?.cancel();
      options.signal?.removeEventListener('abort', onStop);
      stop.abort();
      resolve(outcome);
    };
    const onStop = (): void => finish({ status: 'stopped', attempts });

    const completed = (seq: number, record: AttemptRecord): void => {
      inFlight -= 1;
      if (finished) return;
      attempts += 1;
      lastResult = record.result;
      options.onAttempt?.(record);
      if (goal === 'reachable') {
        if (record.result === 'success') finish({ status: 'done', at: record.endedAt, attempts, ...(record.reply !== undefined ? { reply: record.reply } : {}) });
        return;
      }
      results.set(seq, record);
      for (let next = results.get(nextToJudge); next !== undefined; next = results.get(nextToJudge)) {
        results.delete(nextToJudge);
        nextToJudge += 1;
        if (next.result !== 'success' && next.result !== 'mismatch') return finish({ status: 'done', at: next.startedAt, attempts });
      }
    };

    const launch = (now: number): void => {
      const seq = launched++;
      inFlight += 1;
      const timeoutMs = deadline === undefined ? attemptTimeoutMs : Math.max(1, Math.min(attemptTimeoutMs, deadline - now));
      const dials = Array.from({ length: perAttempt }, () =>
        options.dialer
          .dial({ host: options.host, port: options.port, timeoutMs, readReply: options.matcher.needsReply, signal: stop.signal })
          .catch((error: unknown): DialResult => ({ ok: false, error: error instanceof Error ? error.message : String(error) }))
          .then((result) => ({ result, at: clock.now() })),
      );
      void Promise.all(dials).then((ended) => completed(seq, judge(now, ended, options.matcher)));
    };

    const tick = (): void => {
      if (finished) return;
      const now = clock.now();
      if (deadline !== undefined && now >= deadline) return finish({ status: 'deadline', attempts, ...(lastResult !== undefined ? { lastResult } : {}) });
      if (inFlight < maxInFlight) launch(now);
      nextTickAt = Math.max(nextTickAt + intervalMs, now);
      const wait = deadline === undefined ? nextTickAt - now : Math.min(nextTickAt, deadline) - now;
      timer = clock.setTimeout(tick, wait);
    };

    if (options.signal?.aborted) return onStop();
    options.signal?.addEventListener('abort', onStop, { once: true });
    tick();
  });
}

/** One attempt's verdict from its connections: any accepted answer wins, then any answer at all. */
function judge(startedAt: number, ended: readonly { result: DialResult; at: number }[], matcher: SuccessMatcher): AttemptRecord {
  const answered = ended.filter((e): e is { result: { ok: true; reply?: string }; at: number } => e.result.ok);
  const accepted = answered.filter((e) => matcher.accepts(e.result.reply)).sort((a, b) => a.at - b.at)[0];
  const last = Math.max(...ended.map((e) => e.at));
  const withReply = (e: { result: { reply?: string } }) => (e.result.reply !== undefined ? { reply: e.result.reply } : {});
  if (accepted) return { startedAt, endedAt: accepted.at, result: 'success', ...withReply(accepted) };
  const first = answered[0];
  if (first) return { startedAt, endedAt: last, result: 'mismatch', ...withReply(first) };
  const failure = ended[0]?.result;
  return { startedAt, endedAt: last, result: failure && !failure.ok ? failure.error : 'error' };
}
