import { summarize, type Summary } from './stats.js';

export interface MeasureOptions {
  /** Unrecorded runs first, for JIT and caches (default 1). */
  readonly warmup?: number;
  /** Recorded runs (default 5). */
  readonly runs?: number;
  /** Millisecond clock (default `performance.now`); tests pass a fake one. */
  readonly now?: () => number;
  /** Called before every run, outside the timed part (the CLI collects garbage here). */
  readonly beforeEach?: () => void;
}

export interface Measurement extends Summary {
  readonly name: string;
  readonly unit: string;
  /** In run order. */
  readonly samples: readonly number[];
}

export interface Benchmark {
  readonly name: string;
  readonly fn: () => unknown;
}

function counts(options: MeasureOptions): { warmup: number; runs: number } {
  const warmup = options.warmup ?? 1;
  const runs = options.runs ?? 5;
  if (!Number.isInteger(warmup) || warmup < 0) throw new RangeError(`warmup must be an integer >= 0, got ${warmup}`);
  if (!Number.isInteger(runs) || runs < 1) throw new RangeError(`runs must be an integer >= 1, got ${runs}`);
  return { warmup, runs };
}

async function timeOnce(fn: () => unknown, options: MeasureOptions): Promise<number> {
  const now = options.now ?? (() => performance.now());
  options.beforeEach?.();
  const start = now();
  await fn();
  return now() - start;
}

export function measurementOf(name: string, samples: readonly number[], unit = 'ms'): Measurement {
  return { name, unit, samples, ...summarize(samples) };
}

/** Runs `fn` `warmup` times unrecorded, then `runs` times recorded (awaiting it when it returns a promise). */
export async function measure(name: string, fn: () => unknown, options: MeasureOptions = {}): Promise<Measurement> {
  const { warmup, runs } = counts(options);
  for (let i = 0; i < warmup; i++) await timeOnce(fn, options);
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) samples.push(await timeOnce(fn, options));
  return measurementOf(name, samples);
}

/**
 * Measures `subject` and its `reference` in alternating runs (A B, B A, A B, ...), so drift on a
 * noisy machine hits both alike, and pairs run `i` of one with run `i` of the other for `ratio`.
 */
export async function measurePair(
  subject: Benchmark,
  reference: Benchmark,
  options: MeasureOptions = {},
): Promise<{ readonly subject: Measurement; readonly reference: Measurement }> {
  const { warmup, runs } = counts(options);
  for (let i = 0; i < warmup; i++) {
    await timeOnce(subject.fn, options);
    await timeOnce(reference.fn, options);
  }
  const a: number[] = [];
  const b: number[] = [];
  for (let i = 0; i < runs; i++) {
    if (i % 2 === 0) {
      a.push(await timeOnce(subject.fn, options));
      b.push(await timeOnce(reference.fn, options));
    } else {
      b.push(await timeOnce(reference.fn, options));
      a.push(await timeOnce(subject.fn, options));
    }
  }
  return { subject: measurementOf(subject.name, a), reference: measurementOf(reference.name, b) };
}
