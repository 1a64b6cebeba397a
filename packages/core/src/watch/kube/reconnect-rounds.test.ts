import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../util/fake-clock.js';
import type { FailureClass } from './failure-class.js';
import { MAX_RETRY_AFTER_IN_A_ROW, ReconnectRounds } from './reconnect-rounds.js';

/**
 * A kind whose every attempt fails the same way until `backAt` (monotonic ms), recording when it
 * tried; the failure is reported synchronously, as a refused connection is, within a few ms.
 */
function failingKind(clock: FakeClock, rounds: ReconnectRounds, failure: FailureClass, backAt = Infinity) {
  const attempts: number[] = [];
  const attempt = () => {
    attempts.push(clock.monotonic());
    if (clock.monotonic() < backAt) rounds.retryLater(failure, attempt);
    else rounds.reachable();
  };
  return { attempts, fail: () => rounds.retryLater(failure, attempt) };
}

const gaps = (times: readonly number[], from = 0) => times.map((t, i) => t - (i === 0 ? from : times[i - 1]!));

describe('ReconnectRounds', () => {
  it.each([
    { random: 0, expected: [200, 400, 400, 400, 400] },
    { random: 0.5, expected: [300, 600, 600, 600, 600] },
    { random: 0.999, expected: [399, 799, 799, 799, 799] },
  ])(
    'retries an unreachable server every [400, 800) ms after the first two (random $random)',
    ({ random, expected }) => {
      const clock = new FakeClock();
      const rounds = new ReconnectRounds(clock, {}, () => random);
      const kind = failingKind(clock, rounds, 'unreachable');
      kind.fail();
      clock.advance(5_000);
      expect(gaps(kind.attempts).slice(0, 5)).toEqual(expected);
    },
  );

  it('finds the server within 0.8 s of its return after a 20 s outage, wherever the return falls', () => {
    for (const backAt of [20_000, 20_123, 20_399, 20_799]) {
      const clock = new FakeClock();
      const rounds = new ReconnectRounds(clock, {}, () => 0.999);
      const kind = failingKind(clock, rounds, 'unreachable', backAt);
      kind.fail();
      clock.advance(25_000);
      const found = kind.attempts.find((t) => t >= backAt)!;
      expect(found - backAt).toBeLessThan(800);
      expect(kind.attempts.at(-1)).toBe(found); // and then stops trying
      expect(kind.attempts.length).toBeGreaterThan(20_000 / 800);
    }
  });

  it("backs off from a server answering errors on client-go's schedule, capped at [30 s, 60 s)", () => {
    const clock = new FakeClock();
    const rounds = new ReconnectRounds(clock, {}, () => 0);
    const kind = failingKind(clock, rounds, 'answered');
    kind.fail();
    clock.advance(200_000);
    expect(gaps(kind.attempts).slice(0, 9)).toEqual([800, 1_600, 3_200, 6_400, 12_800, 25_600, 30_000, 30_000, 30_000]);

    const jitterClock = new FakeClock();
    const jittered = failingKind(jitterClock, new ReconnectRounds(jitterClock, {}, () => 0.999), 'answered');
    jittered.fail();
    jitterClock.advance(400_000);
    expect(gaps(jittered.attempts).slice(6, 9)).toEqual([59_970, 59_970, 59_970]);
  });

  it('retries every waiting kind in the same round: no kind trails another', () => {
    const clock = new FakeClock();
    const rounds = new ReconnectRounds(clock, {}, () => 0.999);
    const services = failingKind(clock, rounds, 'unreachable', 5_000);
    const slices = failingKind(clock, rounds, 'unreachable', 5_000);
    const nodes = failingKind(clock, rounds, 'answered', 5_000);
    services.fail();
    clock.advance(150);
    slices.fail(); // joins the pending round rather than opening its own
    clock.advance(100);
    nodes.fail();
    clock.advance(10_000);
    expect(slices.attempts).toEqual(services.attempts);
    expect(nodes.attempts).toEqual(services.attempts);
    expect(services.attempts[0]).toBe(399);
  });

  it('pulls a long error-backoff round in when another kind finds the server unreachable', () => {
    const clock = new FakeClock();
    const rounds = new ReconnectRounds(clock, {}, () => 0);
    const services = failingKind(clock, rounds, 'answered', 30_000);
    services.fail();
    clock.advance(30_000); // Services failed at 0.8, 2.4, 5.6, 12 and 24.8 s, and now waits 25.6 s
    expect(clock.msUntilNextTimer()).toBe(20_400);
    const slices = failingKind(clock, rounds, 'unreachable', 30_000);
    slices.fail(); // its watch is cut: the server just restarted
    clock.advance(1_000);
    expect(slices.attempts).toEqual([30_200]);
    expect(services.attempts.at(-1)).toBe(30_200);
    expect(clock.pendingTimers()).toBe(0);
  });

  it('lets an unreachable failure join a round that comes sooner anyway', () => {
    const clock = new FakeClock();
    const rounds = new ReconnectRounds(clock, {}, () => 0);
    expect(rounds.retryLater('answered', () => {})).toBe(800);
    clock.advance(700);
    expect(rounds.retryLater('unreachable', () => {})).toBe(100);
    expect(clock.pendingTimers()).toBe(1);
  });

  it('starts the unreachable schedule over once the server answered', () => {
    const clock = new FakeClock();
    const rounds = new ReconnectRounds(clock, {}, () => 0);
    const delays = [rounds.retryLater('unreachable', () => {})];
    clock.advance(1_000);
    delays.push(rounds.retryLater('unreachable', () => {}));
    clock.advance(1_000);
    rounds.reachable();
    delays.push(rounds.retryLater('unreachable', () => {}));
    expect(delays).toEqual([200, 400, 200]);
  });

  it('forgets pending retries when cancelled', () => {
    const clock = new FakeClock();
    const rounds = new ReconnectRounds(clock);
    let retried = 0;
    rounds.retryLater('unreachable', () => retried++);
    rounds.cancel();
    clock.advance(60_000);
    expect(retried).toBe(0);
    expect(clock.pendingTimers()).toBe(0);
  });

  it(`waits as long as the server's Retry-After asks, ${MAX_RETRY_AFTER_IN_A_ROW} times in a row, then backs off`, () => {
    const clock = new FakeClock();
    const rounds = new ReconnectRounds(clock, {}, () => 0);
    const delays = Array.from({ length: 12 }, () => {
      const delay = rounds.retryLater('answered', () => {}, 1_000);
      clock.advance(delay);
      return delay;
    });
    // The honoured delays did not advance the backoff: it starts at its first step.
    expect(delays).toEqual([...Array.from({ length: MAX_RETRY_AFTER_IN_A_ROW }, () => 1_000), 800, 1_600]);
    rounds.reachable();
    expect(rounds.retryLater('answered', () => {}, 0)).toBe(0);
  });

  it('never waits longer than the answered cap for a Retry-After', () => {
    const rounds = new ReconnectRounds(new FakeClock(), { answered: { maxMs: 5_000 } });
    expect(rounds.retryLater('answered', () => {}, 3_600_000)).toBe(5_000);
  });

  it('honours configured schedules', () => {
    const rounds = new ReconnectRounds(new FakeClock(), {
      answered: { initialMs: 10, jitter: 0 },
      unreachable: { initialMs: 5, jitter: 0 },
    });
    expect(rounds.retryLater('answered', () => {})).toBe(10);
    const other = new ReconnectRounds(new FakeClock(), { unreachable: { initialMs: 5, jitter: 0 } });
    expect(other.retryLater('unreachable', () => {})).toBe(5);
  });
});
