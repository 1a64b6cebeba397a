import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../test/support/fake-clock.js';
import { FakeDialer } from '../../test/support/fake-dialer.js';
import { connectMatcher, httpReplyMatcher, replyPrefixMatcher } from './matcher.js';
import {
  dialerGraceMs,
  maxAttemptsInFlight,
  probeUntil,
  type AttemptRecord,
  type ProbeLoopOptions,
  type ProbeOutcome,
} from './probe-loop.js';

const HOST = '198.18.1.10';
const PORT = 8080;

function setup(rttMs = 1) {
  const clock = new FakeClock();
  const dialer = new FakeDialer(clock, rttMs);
  const t0 = clock.now();
  const attempts: AttemptRecord[] = [];
  const start = (options: Partial<ProbeLoopOptions> = {}) => {
    let outcome: ProbeOutcome | undefined;
    const promise = probeUntil({
      dialer,
      clock,
      host: HOST,
      port: PORT,
      goal: 'reachable',
      matcher: connectMatcher,
      intervalMs: 100,
      attemptTimeoutMs: 1_000,
      onAttempt: (a) => attempts.push(a),
      ...options,
    }).then((o) => (outcome = o));
    return { promise, result: () => outcome };
  };
  return { clock, dialer, t0, attempts, start };
}

describe('probeUntil (reachable)', () => {
  it('succeeds at the first attempt that connects, timestamped when the connection completed', async () => {
    const { clock, dialer, t0, start } = setup(3);
    dialer.answersFrom(HOST, PORT, t0 + 450);
    const run = start();
    await clock.advanceUntil(() => run.result() !== undefined, 2_000);
    // Attempts at 0, 100, ..., 500: the one started at 500 connects 3 ms later.
    expect(run.result()).toEqual({ status: 'done', at: t0 + 503, attempts: 6 });
  });

  it('starts attempts on a fixed interval even when a rejecting target answers at once (no tight spin)', async () => {
    const { clock, dialer, t0, start, attempts } = setup();
    dialer.answersFrom(HOST, PORT, t0 + 1_000);
    const run = start({ intervalMs: 50 });
    await clock.advanceUntil(() => run.result() !== undefined, 2_000);
    expect(attempts.map((a) => a.startedAt - t0)).toEqual(Array.from({ length: 21 }, (_, i) => i * 50));
    expect(attempts.slice(0, -1).every((a) => a.result === 'refused')).toBe(true);
  });

  it('overlaps attempts on a dropping datapath, so resolution is the interval, not the timeout', async () => {
    const { clock, dialer, t0, start } = setup(2);
    dialer.on(HOST, PORT, (now) => (now >= t0 + 730 ? { kind: 'answer' } : { kind: 'drop' }));
    const run = start({ intervalMs: 100, attemptTimeoutMs: 1_000 });
    await clock.advanceUntil(() => run.result() !== undefined, 3_000);
    // The attempt started at 800 is the first after the drop ended; upstream would wait for a 1 s timeout.
    expect(run.result()).toMatchObject({ status: 'done', at: t0 + 802 });
  });

  it('keeps a 5 ms grid on a dropping datapath: no tick skipped while earlier attempts wait for their timeout', async () => {
    const { clock, dialer, t0, start, attempts } = setup(1);
    // Random phase: the drop ends 733 ms in; the first attempt after it starts at 735.
    dialer.on(HOST, PORT, (now) => (now >= t0 + 733 ? { kind: 'answer' } : { kind: 'drop' }));
    const run = start({ intervalMs: 5, attemptTimeoutMs: 1_000 });
    await clock.advanceUntil(() => run.result() !== undefined, 3_000);
    expect(run.result()).toMatchObject({ status: 'done', at: t0 + 736 });
    const starts = dialer.attempts.map((a) => a.at - t0);
    expect(starts).toEqual(Array.from({ length: 148 }, (_, i) => i * 5));
    expect(attempts.at(-1)).toMatchObject({ startedAt: t0 + 735, result: 'success' });
  });

  it('a dialer that never answers is abandoned after its timeout plus the grace, and the grid backs off meanwhile (counted)', async () => {
    const { clock, dialer, t0, start, attempts } = setup(1);
    dialer.on(HOST, PORT, (now) => (now >= t0 + 2_347 ? { kind: 'answer' } : { kind: 'silent' }));
    let skipped = 0;
    const run = start({ intervalMs: 20, attemptTimeoutMs: 1_000, onSkip: () => (skipped += 1) });
    await clock.advanceUntil(() => run.result() !== undefined, 5_000);
    expect(dialerGraceMs(1_000)).toBe(1_000);
    // 51 attempts fill the bound by 1 000 ms; from 2 000 ms one is abandoned per tick and one starts.
    expect(attempts[0]).toEqual({ startedAt: t0, endedAt: t0 + 2_000, result: 'unanswered' });
    expect(attempts.every((a) => a.result !== 'timeout')).toBe(true);
    expect(run.result()).toMatchObject({ status: 'done', at: t0 + 2_361 });
    expect(skipped).toBe(49); // the ticks at 1 020 .. 1 980 ms
    // The loop's bound, plus the abandoned dial whose abort is still unwinding when the next starts.
    expect(dialer.maxConcurrent).toBe(maxAttemptsInFlight(20, 1_000) + 1);
  });

  it('a late dialer (connections start 300 ms after the request, verdicts read 300 ms after they are decided) is judged by its own verdicts, not timed out by the loop', async () => {
    const { clock, dialer, t0, start, attempts } = setup(2);
    dialer.lag(300, 300).answersFrom(HOST, PORT, t0 + 1_000, 'web-2 198.18.1.12');
    let skipped = 0;
    const run = start({
      intervalMs: 20,
      attemptTimeoutMs: 200,
      matcher: replyPrefixMatcher('web-2'),
      onSkip: () => (skipped += 1),
    });
    await clock.advanceUntil(() => run.result() !== undefined, 5_000);
    // The first connection made at or after 1 000 ms answered 2 ms later: that is the end, though
    // its verdict reached the loop 300 ms after that and 800 ms after the attempt was requested.
    expect(run.result()).toMatchObject({ status: 'done', reply: 'web-2 198.18.1.12' });
    const at = (run.result() as { at: number }).at - t0;
    expect(at).toBeGreaterThanOrEqual(1_002);
    expect(at).toBeLessThanOrEqual(1_002 + 20);
    // Refused before then, as the dialer said; never a timeout the target did not cause.
    expect(attempts.length).toBeGreaterThan(0);
    expect(attempts.filter((a) => a.result !== 'success').every((a) => a.result === 'refused')).toBe(true);
    // 600 ms of lag at a 20 ms grid needs 31 attempts open; the bound is 11: the rest are skipped.
    expect(dialer.maxConcurrent).toBeLessThanOrEqual(maxAttemptsInFlight(20, 200));
    expect(skipped).toBeGreaterThan(0);
  });

  it.each([
    [5, 1_000, 201],
    [20, 1_000, 51],
    [100, 1_000, 11],
    [100, 250, 4],
    [1_000, 1_000, 2],
  ])(
    'interval %i ms, timeout %i ms: at most %i attempts in flight, and the bound is reached, never exceeded',
    async (interval, timeout, bound) => {
      expect(maxAttemptsInFlight(interval, timeout)).toBe(bound);
      const { clock, dialer, start } = setup();
      dialer.on(HOST, PORT, { kind: 'drop' });
      start({ intervalMs: interval, attemptTimeoutMs: timeout, deadline: clock.now() + 3 * timeout });
      await clock.advance(3 * timeout);
      expect(dialer.maxConcurrent).toBeLessThanOrEqual(bound);
      expect(dialer.maxConcurrent).toBeGreaterThanOrEqual(bound - 1);
      expect(dialer.attemptsTo(HOST)).toBe(Math.ceil((3 * timeout) / interval));
    },
  );

  it('gives up at the deadline with the last result', async () => {
    const { clock, dialer, t0, start } = setup();
    dialer.on(HOST, PORT, { kind: 'refuse' });
    const run = start({ deadline: t0 + 1_000 });
    await clock.advance(1_000);
    expect(run.result()).toEqual({ status: 'deadline', attempts: 10, lastResult: 'refused' });
    expect(clock.pendingTimers).toBe(0);
  });

  it('bounds each attempt by the time left before the deadline', async () => {
    const { clock, dialer, t0, start, attempts } = setup();
    dialer.on(HOST, PORT, { kind: 'drop' });
    const run = start({ cadence: 'sequential', intervalMs: 100, attemptTimeoutMs: 1_000, deadline: t0 + 250 });
    await clock.advance(250);
    expect(run.result()).toMatchObject({ status: 'deadline' });
    expect(attempts).toHaveLength(1);
    expect(attempts[0]!.endedAt - attempts[0]!.startedAt).toBe(250);
  });

  it('stops when the signal aborts, and aborts the dials in flight', async () => {
    const { clock, dialer, start } = setup();
    dialer.on(HOST, PORT, { kind: 'drop' });
    const stop = new AbortController();
    const run = start({ signal: stop.signal });
    await clock.advance(250);
    stop.abort();
    await clock.advance(0);
    expect(run.result()).toEqual({ status: 'stopped', attempts: 0 });
    expect(clock.pendingTimers).toBe(0);
  });

  it('with a reply matcher, only the expected server counts; others are mismatches', async () => {
    const { clock, dialer, t0, start, attempts } = setup();
    let n = 0;
    dialer.on(HOST, PORT, (now) => ({
      kind: 'answer',
      reply: now >= t0 + 200 && n++ % 2 === 1 ? 'web-2 198.18.1.20' : 'web-1 198.18.1.20',
    }));
    const run = start({ matcher: replyPrefixMatcher('web-2') });
    await clock.advanceUntil(() => run.result() !== undefined, 2_000);
    expect(run.result()).toMatchObject({ status: 'done', at: t0 + 301, reply: 'web-2 198.18.1.20' });
    expect(attempts.map((a) => a.result)).toEqual(['mismatch', 'mismatch', 'mismatch', 'success']);
  });

  it('several connections per attempt find one endpoint among many sooner', async () => {
    const { clock, dialer, start } = setup();
    let n = 0;
    dialer.on(HOST, PORT, () => ({ kind: 'answer', reply: `web-${n++ % 4}` }));
    const run = start({ matcher: replyPrefixMatcher('web-3'), connectionsPerAttempt: 4 });
    await clock.advanceUntil(() => run.result() !== undefined, 2_000);
    expect(run.result()).toMatchObject({ status: 'done', attempts: 1, reply: 'web-3' });
  });
});

describe('probeUntil (sequential cadence: upstream)', () => {
  it('on a dropping datapath the next attempt waits for the timeout: upstream resolution of about 1 s', async () => {
    const { clock, dialer, t0, start } = setup(2);
    dialer.on(HOST, PORT, (now) => (now >= t0 + 730 ? { kind: 'answer' } : { kind: 'drop' }));
    const run = start({ cadence: 'sequential', intervalMs: 10, attemptTimeoutMs: 1_000 });
    await clock.advanceUntil(() => run.result() !== undefined, 3_000);
    expect(dialer.attempts.map((a) => a.at - t0)).toEqual([0, 1_000]);
    expect(run.result()).toMatchObject({ status: 'done', at: t0 + 1_002, attempts: 2 });
  });

  it('on a rejecting datapath attempts follow each other, no sooner than the interval (no tight spin)', async () => {
    const { clock, dialer, t0, start } = setup(3);
    dialer.answersFrom(HOST, PORT, t0 + 95);
    const run = start({ cadence: 'sequential', intervalMs: 10, attemptTimeoutMs: 1_000 });
    await clock.advanceUntil(() => run.result() !== undefined, 1_000);
    expect(dialer.attempts.map((a) => a.at - t0)).toEqual(Array.from({ length: 11 }, (_, i) => i * 10));
    expect(dialer.maxConcurrent).toBe(1);
    expect(run.result()).toMatchObject({ status: 'done', at: t0 + 103 });
  });

  it('a slow answer delays the next attempt (one at a time)', async () => {
    const { clock, dialer, t0, start } = setup(25);
    dialer.answersFrom(HOST, PORT, t0 + 60);
    const run = start({ cadence: 'sequential', intervalMs: 10, attemptTimeoutMs: 1_000 });
    await clock.advanceUntil(() => run.result() !== undefined, 1_000);
    expect(dialer.attempts.map((a) => a.at - t0)).toEqual([0, 25, 50, 75]);
    expect(run.result()).toMatchObject({ status: 'done', at: t0 + 100 });
  });

  it("with upstream's success criterion, an HTTP request is sent and only an HTTP reply counts", async () => {
    const { clock, dialer, t0, start } = setup(2);
    dialer.on(HOST, PORT, (now) => ({ kind: 'answer', reply: now >= t0 + 40 ? 'HTTP/1.1 403 Forbidden' : 'not-http' }));
    const run = start({ cadence: 'sequential', intervalMs: 10, matcher: httpReplyMatcher });
    await clock.advanceUntil(() => run.result() !== undefined, 1_000);
    expect(run.result()).toMatchObject({ status: 'done', at: t0 + 42, reply: 'HTTP/1.1 403 Forbidden' });
    expect(dialer.attempts[0]?.send).toBe(
      `GET / HTTP/1.1\r\nHost: ${HOST}:${PORT}\r\nUser-Agent: kpng-test-clients\r\nAccept: */*\r\nConnection: close\r\n\r\n`,
    );
  });
});

describe('probeUntil (unreachable)', () => {
  it('reports the start of the first failing attempt, after every earlier one succeeded', async () => {
    const { clock, dialer, t0, start } = setup(2);
    // Dropped from 420 on: the attempt started at 500 is the first to fail, noticed only at its timeout.
    dialer.on(HOST, PORT, (now) => (now >= t0 + 420 ? { kind: 'drop' } : { kind: 'answer' }));
    const run = start({ goal: 'unreachable', attemptTimeoutMs: 300 });
    await clock.advance(790);
    expect(run.result()).toBeUndefined();
    await clock.advance(10);
    expect(run.result()).toEqual({ status: 'done', at: t0 + 500, attempts: 6 });
  });

  it('judges attempts in start order: a later quick failure waits for an earlier slow one', async () => {
    const { clock, dialer, t0, start } = setup(1);
    // The attempt at 0 is dropped (times out at 300); the one at 100 is refused at once.
    dialer.on(HOST, PORT, (now) => (now < t0 + 50 ? { kind: 'drop' } : { kind: 'refuse' }));
    const run = start({ goal: 'unreachable', attemptTimeoutMs: 300 });
    await clock.advance(150);
    expect(run.result()).toBeUndefined();
    await clock.advance(200);
    expect(run.result()).toMatchObject({ status: 'done', at: t0 });
  });

  it('a mismatch still counts as reachable', async () => {
    const { clock, dialer, t0, start } = setup();
    dialer.on(HOST, PORT, (now) => (now >= t0 + 300 ? { kind: 'refuse' } : { kind: 'answer', reply: 'someone-else' }));
    const run = start({ goal: 'unreachable', matcher: replyPrefixMatcher('web-1') });
    await clock.advanceUntil(() => run.result() !== undefined, 2_000);
    expect(run.result()).toMatchObject({ status: 'done', at: t0 + 300 });
  });
});
