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
  log: RecordingLogger;
}

function setup(runMs = 0): Harness {
  const clock = new FakeClock();
  const log = new RecordingLogger();
  const h: Harness = { clock, runner: undefined as unknown as SyncRunner, starts: [], runMs, failNext: false, log };
  h.runner = new SyncRunner({
    clock,
    log,
    minIntervalMs: MIN,
    maxIntervalMs: MAX,
    fn: async () => {
      h.starts.push(clock.monotonic());
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

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.runner.stop();
  harness = undefined;
});

describe('SyncRunner', () => {
  it('runs a lone request at once', async () => {
    const h = (harness = setup());
    await h.clock.tick(5000);
    h.runner.run();
    await h.clock.tick(0);
    expect(h.starts).toEqual([5000]);
  });

  it('defers a request until minInterval after the previous run ended', async () => {
    const h = (harness = setup(200));
    h.runner.run();
    await h.clock.tick(300); // run: 0..200
    h.runner.run();
    await h.clock.tick(5000);
    expect(h.starts).toEqual([0, 1200]);
  });

  it('runs at once when minInterval has already passed since the previous run', async () => {
    const h = (harness = setup());
    h.runner.run();
    await h.clock.tick(MIN);
    h.runner.run();
    await h.clock.tick(0);
    expect(h.starts).toEqual([0, MIN]);
  });

  it('coalesces a burst during a run into exactly one further run', async () => {
    const h = (harness = setup(500));
    h.runner.run();
    await h.clock.tick(100);
    for (let i = 0; i < 50; i++) h.runner.run();
    await h.clock.tick(10_000);
    expect(h.starts).toEqual([0, 1500]);
  });

  it('coalesces a burst inside the minInterval window into one run', async () => {
    const h = (harness = setup());
    h.runner.run();
    await h.clock.tick(0);
    for (let t = 0; t < 9; t++) {
      h.runner.run();
      await h.clock.tick(100);
    }
    await h.clock.tick(10_000);
    expect(h.starts).toEqual([0, MIN]);
  });

  it('runs every maxInterval when nothing is requested, counting from the last run', async () => {
    const h = (harness = setup());
    await h.clock.tick(MAX);
    expect(h.starts).toEqual([MAX]);
    await h.clock.tick(10_000);
    h.runner.run(); // restarts the periodic timer
    await h.clock.tick(MAX - 1);
    expect(h.starts).toEqual([MAX, MAX + 10_000]);
    await h.clock.tick(1);
    expect(h.starts).toEqual([MAX, MAX + 10_000, 2 * MAX + 10_000]);
  });

  it('retries after the given delay', async () => {
    const h = (harness = setup());
    h.runner.run();
    await h.clock.tick(0);
    h.runner.retryAfter(30_000);
    await h.clock.tick(29_999);
    expect(h.starts).toEqual([0]);
    await h.clock.tick(1);
    expect(h.starts).toEqual([0, 30_000]);
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
