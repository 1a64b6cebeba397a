import type { Measurement, MeasureOptions } from '../runner/measure.js';
import type { ReportRow } from '../runner/report.js';
import type { ScenarioName } from '../scenarios/catalog.js';
import type { Scenario } from '../scenarios/scenario.js';

/** What a suite gets to work with: the chosen scenario, the run counts and the reporter. */
export interface SuiteContext {
  readonly scenario: ScenarioName;
  /** From `--runs` / `--warmup`; `measure` uses them unless told otherwise. */
  readonly runs: number;
  readonly warmup: number;
  /** From `--seed` (default 1). */
  readonly seed: number;
  /** The scenario's objects, generated once per process and shared by every suite. Treat as read-only. */
  objects(): Scenario;
  /** Times `fn` with the CLI's run counts (and a garbage collection before each run). */
  measure(name: string, fn: () => unknown, options?: MeasureOptions): Promise<Measurement>;
  /** Times `fn` and `reference` in alternating runs; reports both timings and their ratio. */
  measureAgainst(
    metric: string,
    fn: () => unknown,
    reference: { readonly name: string; readonly fn: () => unknown },
    options?: MeasureOptions,
  ): Promise<{ readonly subject: Measurement; readonly reference: Measurement; readonly ratio: Measurement }>;
  /** Prints one JSON line now (and a table line at the end). */
  report(row: ReportRow): void;
  /** Reports a measurement under `metric` (value = median). */
  reportMeasurement(metric: string, measurement: Measurement): void;
  /** Reports a single figure (a size, a count). */
  reportValue(metric: string, value: number, unit: string): void;
  /** Progress for humans, on stderr. */
  log(message: string): void;
  /** `--key=value` / `--flag` arguments the CLI does not know, for suite-specific settings. */
  readonly options: Readonly<Record<string, string | true>>;
  /** Aborted on Ctrl-C: stop early and clean up (network namespaces!). */
  readonly signal: AbortSignal;
}

/**
 * A benchmark suite. One lives in `src/suites/<name>.suite.ts` and default-exports itself; the CLI
 * discovers it from the file name, so adding a suite touches no other file.
 */
export interface Suite {
  /** Must equal the file name without `.suite.ts`. */
  readonly name: string;
  readonly description: string;
  /** The scenarios this suite can run; a run of a scenario runs every suite listing it. */
  readonly scenarios: readonly ScenarioName[];
  run(ctx: SuiteContext): Promise<void>;
}

/** Identity, for type inference in suite files: `export default defineSuite({ ... })`. */
export function defineSuite(suite: Suite): Suite {
  return suite;
}
