import { createReporter, type Writable } from '../runner/report.js';
import { SCENARIOS, SCENARIO_NAMES, generate, isScenarioName, type ScenarioName } from '../scenarios/catalog.js';
import { writeScenario } from '../scenarios/write.js';
import { loadSuite, suiteNames } from '../suites/registry.js';
import type { Suite } from '../suites/suite.js';
import { USAGE, parseArgs, type BenchArgs } from './args.js';
import { createSuiteContext } from './context.js';

export interface BenchIO {
  readonly out: Writable;
  readonly err: Writable;
  /** Where suites are discovered (default: `src/suites`). */
  readonly suitesDir?: string;
}

async function listAll(io: BenchIO): Promise<number> {
  io.err.write('scenarios:\n');
  for (const name of SCENARIO_NAMES) io.err.write(`  ${name.padEnd(10)} ${SCENARIOS[name].description}\n`);
  io.err.write('suites:\n');
  let failed = 0;
  for (const name of suiteNames(io.suitesDir)) {
    try {
      const suite = await loadSuite(name, io.suitesDir);
      io.err.write(`  ${name.padEnd(10)} ${suite.description} [${suite.scenarios.join(', ')}]\n`);
    } catch (error) {
      failed++;
      io.err.write(`  ${name.padEnd(10)} FAILED TO LOAD: ${(error as Error).message}\n`);
    }
  }
  return failed > 0 ? 1 : 0;
}

/** The suites to run: those named, or every suite that supports the scenario. */
async function selectSuites(
  args: BenchArgs,
  scenario: ScenarioName,
  io: BenchIO,
): Promise<{ suites: Suite[]; failures: number }> {
  const suites: Suite[] = [];
  let failures = 0;
  const requested = args.suites.length > 0;
  for (const name of requested ? args.suites : suiteNames(io.suitesDir)) {
    try {
      const suite = await loadSuite(name, io.suitesDir);
      if (suite.scenarios.includes(scenario)) suites.push(suite);
      else if (requested) {
        failures++;
        io.err.write(`suite ${name} does not support ${scenario} (it runs: ${suite.scenarios.join(', ')})\n`);
      }
    } catch (error) {
      failures++;
      io.err.write(`suite ${name} failed to load: ${(error as Error).message}\n`);
    }
  }
  return { suites, failures };
}

/** The whole CLI; returns the exit code (0 ok, 1 a suite failed, 2 bad usage). */
export async function main(
  argv: readonly string[],
  io: BenchIO = { out: process.stdout, err: process.stderr },
): Promise<number> {
  let args: BenchArgs;
  try {
    args = parseArgs(argv);
  } catch (error) {
    io.err.write(`${(error as Error).message}\n\n${USAGE}`);
    return 2;
  }
  if (args.help) {
    io.err.write(USAGE);
    return 0;
  }
  if (args.list) return listAll(io);
  if (args.scenario === undefined || !isScenarioName(args.scenario)) {
    io.err.write(
      `${args.scenario === undefined ? 'no scenario given' : `unknown scenario "${args.scenario}"`}\n\n${USAGE}`,
    );
    return 2;
  }
  const scenario = args.scenario;
  if (args.write !== undefined) {
    const bytes = await writeScenario(generate(scenario, { seed: args.seed }), args.write);
    io.err.write(`wrote ${scenario} (seed ${args.seed}) to ${args.write}: ${bytes} bytes\n`);
    return 0;
  }

  const { suites, failures: loadFailures } = await selectSuites(args, scenario, io);
  let failures = loadFailures;
  if (suites.length === 0 && failures === 0) {
    io.err.write(`no suite supports ${scenario}\n`);
    return 2;
  }
  const aborter = new AbortController();
  const onInterrupt = (): void => aborter.abort(new Error('interrupted'));
  process.once('SIGINT', onInterrupt);
  const reporter = createReporter(io.out, io.err);
  const ctx = createSuiteContext({ ...args, scenario, reporter, err: io.err, signal: aborter.signal });
  try {
    for (const suite of suites) {
      if (aborter.signal.aborted) break;
      io.err.write(`# ${suite.name} on ${scenario} (runs ${args.runs}, warmup ${args.warmup})\n`);
      try {
        await suite.run(ctx);
      } catch (error) {
        failures++;
        io.err.write(`suite ${suite.name} failed: ${(error as Error).stack ?? String(error)}\n`);
      }
    }
  } finally {
    process.removeListener('SIGINT', onInterrupt);
  }
  io.err.write('\n');
  reporter.printTable();
  if (aborter.signal.aborted) io.err.write('interrupted\n');
  return failures > 0 || aborter.signal.aborted ? 1 : 0;
}
