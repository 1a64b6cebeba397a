import { afterEach, describe, expect, it } from 'vitest';
import { FakeClock } from '../util/fake-clock.js';
import { RecordingLogger } from './recording-logger.js';
import { SyncRunner } from './runner.js';

const MIN = 1000;
const MAX = 60_000;

interface Harness {
  clock: FakeClock;
  runner: SyncRunner;
  /** Monotonic start time of each run. */
  starts: number[];
  /** How long each run takes, in fake ms. */
  runMs: number;
  failNext: boolean;
  /** Called at the start of each run (e.g. to request more while it runs). */
  during: (() => void) | undefined;
  log: RecordingLogger;
}

function setup(runMs = 0, minIntervalMs = MIN, burstRuns?: number): Harness {
  const clock = new FakeClock();
  const log = new RecordingLogger();
  const h: Harness = {
    clock,
    runner: undefined as unknown as SyncRunner,
    starts: [],
    runMs,
    failNext: false,
    during: undefined,
    log,
  };
  h.runner = new SyncRunner({
    clock,
    log,
    minIntervalMs,
    maxIntervalMs: MAX,
    ...(burstRuns === undefined ? {} : { burstRuns }),
    fn: async () => {
      h.starts.push(clock.monotonic());
      h.during?.();
      if (h.runMs > 0) await new Promise<void>((r) => clock.setTimeout(r, h.runMs));
      if (h.failNext) {
        h.failNext = false;
        throw new Error('boom');
      }
    },
  });
  h.runner.start();
  return h;
}

/** Requests a run at each of the given times (fake ms from now), then lets `settleMs` pass. */
async function requestAt(h: Harness, times: readonly number[], settleMs = 10_000): Promise<void> {
  let now = 0;
  for (const t of times) {
    await h.clock.tick(t - now);
    now = t;
    h.runner.run();
  }
  await h.clock.tick(settleMs);
}

let harness: Harness | undefined;
afterEach(async () => {
  if (!harness) return;
  const stopping = harness.runner.stop();
  await harness.clock.tick(harness.runMs); // lets a run in progress finish
  await stopping;
  harness = undefined;
});

describe('SyncRunner (upstream BoundedFrequencyRunner, burst 2)', () => {
  // Start times of runs for requests at the given times; run duration `runMs`.
  const cases: ReadonlyArray<{ name: string; runMs: number; requests: number[]; starts: number[] }> = [
    { name: 'a lone request runs at once', runMs: 0, requests: [5000], starts: [5000] },
    {
      // The measured regression: a Service, then its EndpointSlice 50 ms later. Upstream programs
      // both at once; a runner without a burst made the slice wait out minSyncPeriod.
      name: 'a second request right after a run also runs at once (the burst)',
      runMs: 25,
      requests: [0, 50],
      starts: [0, 50],
    },
    {
      name: 'a third request inside the window waits until minInterval after the previous run ended',
      runMs: 0,
      requests: [0, 10, 20],
      starts: [0, 10, 1010],
    },
    {
      name: 'the burst refills at one run per minInterval',
      runMs: 0,
      requests: [0, 0, 2 * MIN, 2 * MIN, 2 * MIN + 1],
      starts: [0, 0, 2 * MIN, 2 * MIN, 3 * MIN],
    },
    {
      name: 'any number of requests during a run collapse into one attempt after it',
      runMs: 500,
      requests: [0, 100, 200, 300, 400],
      starts: [0, 500],
    },
    {
      name: 'sustained requests settle at one run per minInterval after the burst',
      runMs: 0,
      requests: Array.from({ length: 40 }, (_, i) => i * 100),
      starts: [0, 100, 1000, 2000, 3000, 4000],
    },
  ];

  it.each(cases)('$name', async ({ runMs, requests, starts }) => {
    const h = (harness = setup(runMs));
    await requestAt(h, requests);
    expect(h.starts).toEqual(starts);
  });

  it('with minInterval 0 nothing is rate limited', async () => {
    const h = (harness = setup(0, 0));
    await requestAt(h, [0, 0, 0, 1, 2]);
    expect(h.starts).toEqual([0, 0, 0, 1, 2]);
  });

  it('a burst of 1 spaces every run', async () => {
    const h = (harness = setup(0, MIN, 1));
    await requestAt(h, [0, 50]);
    expect(h.starts).toEqual([0, MIN]);
  });

  it('runs every maxInterval when nothing is requested, counting from the last run', async () => {
    const h = (harness = setup());
    await h.clock.tick(MAX);
    expect(h.starts).toEqual([MAX]);
    await h.clock.tick(10_000);
    h.runner.run(); // re-arms the periodic timer
    await h.clock.tick(MAX - 1);
    expect(h.starts).toEqual([MAX, MAX + 10_000]);
    await h.clock.tick(1);
    expect(h.starts).toEqual([MAX, MAX + 10_000, 2 * MAX + 10_000]);
  });

  it('a retry pulls the timer in and a later retry never pushes it out', async () => {
    const h = (harness = setup());
    h.runner.run();
    await h.clock.tick(0);
    h.runner.retryAfter(30_000);
    h.runner.retryAfter(40_000);
    await h.clock.tick(29_999);
    expect(h.starts).toEqual([0]);
    await h.clock.tick(1);
    expect(h.starts).toEqual([0, 30_000]);
    await h.clock.tick(MAX - 1);
    expect(h.starts).toEqual([0, 30_000]); // the run re-armed the periodic timer
  });

  it('a retry later than the periodic timer changes nothing', async () => {
    const h = (harness = setup());
    h.runner.retryAfter(2 * MAX);
    await h.clock.tick(MAX);
    expect(h.starts).toEqual([MAX]);
  });

  it('a retry requested during a run (a failed sync) applies after it', async () => {
    const h = (harness = setup(200));
    h.during = () => h.runner.retryAfter(30_000);
    h.runner.run();
    await h.clock.tick(200);
    h.during = undefined;
    await h.clock.tick(29_799);
    expect(h.starts).toEqual([0]);
    await h.clock.tick(1);
    expect(h.starts).toEqual([0, 30_000]);
  });

  it('a retry that falls due without a token runs as soon as the bucket has one, not minInterval later', async () => {
    const h = (harness = setup(300));
    h.runner.run();
    await h.clock.tick(100);
    h.runner.run(); // runs 300..600 on the second token
    await h.clock.tick(500);
    expect(h.starts).toEqual([0, 300]);
    h.runner.retryAfter(100); // falls due at 700 with 0.7 tokens; a token is there at 1000
    await h.clock.tick(5000);
    expect(h.starts).toEqual([0, 300, 1000]);
  });

  it('a request before start runs when the runner starts', async () => {
    const clock = new FakeClock();
    const starts: number[] = [];
    const runner = new SyncRunner({
      clock,
      minIntervalMs: MIN,
      maxIntervalMs: MAX,
      fn: async () => void starts.push(clock.monotonic()),
    });
    runner.run();
    await clock.tick(500);
    expect(starts).toEqual([]);
    runner.start();
    await clock.tick(0);
    expect(starts).toEqual([500]);
    await runner.stop();
  });

  it('refuses maxInterval below minInterval', () => {
    expect(
      () => new SyncRunner({ clock: new FakeClock(), minIntervalMs: 2, maxIntervalMs: 1, fn: async () => {} }),
    ).toThrow(/maxInterval \(1 ms\) must be >= minInterval \(2 ms\)/);
  });

  it('keeps running after a run throws', async () => {
    const h = (harness = setup());
    h.failNext = true;
    h.runner.run();
    await h.clock.tick(MIN);
    h.runner.run();
    await h.clock.tick(0);
    expect(h.starts).toEqual([0, MIN]);
    expect(h.log.at('error').map((r) => r.msg)).toEqual(['sync runner: run failed']);
  });

  it('stop waits for the run in progress and starts no further run', async () => {
    const h = (harness = setup(500));
    h.runner.run();
    await h.clock.tick(100);
    h.runner.run();
    let stopped = false;
    const stopping = h.runner.stop().then(() => (stopped = true));
    await h.clock.tick(0);
    expect(stopped).toBe(false);
    await h.clock.tick(400);
    await stopping;
    h.runner.run();
    await h.clock.tick(10 * MAX);
    expect(h.starts).toEqual([0]);
    expect(h.clock.pendingTimers()).toBe(0);
  });
});
