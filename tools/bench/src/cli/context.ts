import { garbageCollector } from '../runner/gc.js';
import { measure, measurePair, type MeasureOptions } from '../runner/measure.js';
import { ratio } from '../runner/ratio.js';
import { rowFromMeasurement, rowFromValue, type Reporter, type Writable } from '../runner/report.js';
import { generate, type ScenarioName } from '../scenarios/catalog.js';
import type { Scenario } from '../scenarios/scenario.js';
import type { SuiteContext } from '../suites/suite.js';

export interface ContextSettings {
  readonly scenario: ScenarioName;
  readonly runs: number;
  readonly warmup: number;
  readonly seed: number;
  readonly options: Readonly<Record<string, string | true>>;
  readonly reporter: Reporter;
  readonly err: Writable;
  readonly signal: AbortSignal;
}

/** One context per process and scenario: every suite shares the generated objects. */
export function createSuiteContext(settings: ContextSettings): SuiteContext {
  const { scenario, runs, warmup, seed, reporter, err } = settings;
  let objects: Scenario | undefined;
  const gc = garbageCollector();
  const defaults: MeasureOptions = { runs, warmup, ...(gc ? { beforeEach: gc } : {}) };
  const reportMeasurement: SuiteContext['reportMeasurement'] = (metric, m) =>
    reporter.report(rowFromMeasurement(scenario, metric, m));
  return {
    scenario,
    runs,
    warmup,
    seed,
    options: settings.options,
    signal: settings.signal,
    objects: () => (objects ??= generate(scenario, { seed })),
    measure: (name, fn, options) => measure(name, fn, { ...defaults, ...options }),
    async measureAgainst(metric, fn, reference, options) {
      const pair = await measurePair({ name: metric, fn }, reference, { ...defaults, ...options });
      const r = ratio(pair.subject, pair.reference);
      reportMeasurement(metric, pair.subject);
      reportMeasurement(`${metric}.reference.${reference.name}`, pair.reference);
      reportMeasurement(`${metric}.vs.${reference.name}`, r);
      return { ...pair, ratio: r };
    },
    report: (row) => reporter.report(row),
    reportMeasurement,
    reportValue: (metric, value, unit) => reporter.report(rowFromValue(scenario, metric, value, unit)),
    log: (message) => void err.write(`${message}\n`),
  };
}
