import { writeFileSync } from 'node:fs';
import { scaledTimeout } from '../netns/timeout-scale.js';
import type { GuestTest } from '../vm/vitest-in-vm.js';

/**
 * One file's cases, run by plain `node` inside the lab's VM (`runScriptInVm`): a bundled script,
 * without vitest's start and TypeScript transforms, which under the VM's emulated CPU cost more than
 * the cases (the ebpf 6.1 guest: ~115 s of transform and import before its first case). The same
 * suite object runs under vitest on the host (`describe`, `beforeAll`, `it` over `cases`), so the
 * cases and their assertions are written once.
 */
export interface GuestSuite {
  /** The `describe` title: each case's full name is `<title> <case name>`, as vitest's. */
  readonly title: string;
  readonly beforeAll?: () => Promise<void> | void;
  readonly afterAll?: () => Promise<void> | void;
  readonly cases: readonly GuestCase[];
}

export interface GuestCase {
  readonly name: string;
  readonly run: () => Promise<void> | void;
}

/** Env naming the file the guest writes its report to (the job share's `report.json`). */
export const GUEST_REPORT_ENV = 'KPNG_VM_REPORT';

export interface RunGuestSuiteOptions {
  /** The file name the report gives each case (the host groups and names cases by it). */
  readonly file: string;
  /** Cases reported as skipped, not run. */
  readonly skip?: (name: string) => boolean;
  /** Budget for `beforeAll` and `afterAll` each, before the VM's scale (vitest's `--hookTimeout` in the guest). */
  readonly hookTimeoutMs?: number;
  /** Budget for one case, before the VM's scale (vitest's `--testTimeout` in the guest). */
  readonly caseTimeoutMs?: number;
}

/**
 * Runs `suite` in order, as vitest would (a failed `beforeAll` fails every case), printing one line
 * per case with the seconds since the start, and writes the cases' outcomes to `$KPNG_VM_REPORT`
 * in `GuestTest`'s shape. Resolves to the process's exit code: 0 when every case that ran passed
 * and both hooks succeeded.
 */
export async function runGuestSuite(suite: GuestSuite, options: RunGuestSuiteOptions): Promise<number> {
  const started = Date.now();
  const since = (): string => `+${((Date.now() - started) / 1000).toFixed(1)} s`;
  const hookMs = scaledTimeout(options.hookTimeoutMs ?? 100_000);
  const caseMs = scaledTimeout(options.caseTimeoutMs ?? 60_000);
  const tests: GuestTest[] = [];
  const record = (name: string, status: GuestTest['status'], failureMessages: string[] = []): void => {
    tests.push({ file: options.file, fullName: `${suite.title} ${name}`, status, failureMessages });
  };
  let exitCode = 0;
  // Node's start and the script's load (the bundle, what it imports at its top) before the first hook.
  console.log(`GUEST the script started ${process.uptime().toFixed(1)} s after node did`);
  const setUp = await settle(() => suite.beforeAll?.(), hookMs, 'beforeAll');
  console.log(`GUEST ${since()} beforeAll ${setUp === undefined ? 'done' : `failed: ${setUp}`}`);
  for (const c of suite.cases) {
    if (options.skip?.(c.name) === true) {
      record(c.name, 'skipped');
      console.log(`GUEST ${since()} ↓ ${c.name}`);
      continue;
    }
    const caseStarted = Date.now();
    const failure = setUp ?? (await settle(c.run, caseMs, c.name));
    record(c.name, failure === undefined ? 'passed' : 'failed', failure === undefined ? [] : [failure]);
    if (failure !== undefined) exitCode = 1;
    console.log(
      `GUEST ${since()} ${failure === undefined ? '✓' : '×'} ${c.name} ${Date.now() - caseStarted} ms${failure === undefined ? '' : `\n${failure}`}`,
    );
  }
  const tornDown = await settle(() => suite.afterAll?.(), hookMs, 'afterAll');
  if (tornDown !== undefined) exitCode = 1;
  console.log(`GUEST ${since()} afterAll ${tornDown === undefined ? 'done' : `failed: ${tornDown}`}`);
  const report = process.env[GUEST_REPORT_ENV];
  if (report !== undefined && report !== '') writeFileSync(report, JSON.stringify({ tests }));
  return exitCode;
}

/** Runs `fn` within `ms`; undefined when it succeeded, else the failure's text (stack included). */
async function settle(fn: () => Promise<void> | void, ms: number, what: string): Promise<string | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} timed out after ${ms} ms`)), ms);
  });
  try {
    await Promise.race([Promise.resolve().then(fn), timeout]);
    return undefined;
  } catch (error) {
    return error instanceof Error ? (error.stack ?? error.message) : String(error);
  } finally {
    clearTimeout(timer);
  }
}
