import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join } from 'node:path';
import { TIMEOUT_SCALE_ENV } from '../netns/timeout-scale.js';
import type { KernelId } from './kernels.js';
import { jobMount, runInVm, type VmRunOptions, type VmRunResult } from './vm.js';

export interface VitestInVmOptions {
  readonly kernel?: KernelId;
  /** The package folder vitest runs in (its cwd). */
  readonly packageDir: string;
  /** A vitest config selecting the guest-only files, relative to `packageDir`. */
  readonly config: string;
  /** Filters, as on vitest's command line. */
  readonly files?: readonly string[];
  /** Only tests whose full name matches (vitest's `-t`). */
  readonly testNamePattern?: string;
  readonly env?: Readonly<Record<string, string>>;
  /**
   * Files handed to the guest (name -> content), readable there under `$KPNG_VM_INPUTS/<name>`:
   * e.g. scenarios computed on the host, where importing heavy modules costs no emulation time.
   */
  readonly inputs?: Readonly<Record<string, string>>;
  readonly timeoutMs?: number;
  readonly onOutput?: (chunk: string) => void;
}

/** One test as the guest's vitest JSON reporter saw it. */
export interface GuestTest {
  readonly file: string;
  readonly fullName: string;
  readonly status: 'passed' | 'failed' | 'skipped' | 'pending' | 'todo';
  readonly failureMessages: readonly string[];
}

export interface VitestInVmResult extends VmRunResult {
  /** Empty when the guest's vitest wrote no report (it crashed before the end). */
  readonly tests: readonly GuestTest[];
}

/** Env the guest sees, so suites can tell they run inside the lab's VM. */
export const IN_VM_ENV = 'KPNG_IN_VM';
/** Env naming the guest folder that holds `inputs`. */
export const VM_INPUTS_ENV = 'KPNG_VM_INPUTS';

/** The env every guest job gets (`runVitestInVm`, `runScriptInVm`), before the caller's own. */
export function guestEnv(): Record<string, string> {
  return {
    [IN_VM_ENV]: '1',
    [VM_INPUTS_ENV]: `${jobMount}/inputs`,
    // One emulated CPU on a shared host: the lab's probes and server starts get three times the budget.
    [TIMEOUT_SCALE_ENV]: '3',
    FORCE_COLOR: '0',
    CI: 'true',
  };
}

/** The `runInVm` options a guest suite's options give (`runVitestInVm`, `runScriptInVm`): kernel, budget, output, cwd, env. */
export function guestJob(
  options: Pick<VitestInVmOptions, 'kernel' | 'packageDir' | 'env' | 'timeoutMs' | 'onOutput'>,
  env: Readonly<Record<string, string>> = {},
): Omit<VmRunOptions, 'command'> {
  return {
    ...(options.kernel === undefined ? {} : { kernel: options.kernel }),
    ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
    ...(options.onOutput === undefined ? {} : { onOutput: options.onOutput }),
    cwd: options.packageDir,
    env: { ...guestEnv(), ...env, ...options.env },
  };
}

/** Runs vitest inside one VM (one boot for the whole suite) and returns each test's outcome. */
export async function runVitestInVm(options: VitestInVmOptions): Promise<VitestInVmResult> {
  let tests: GuestTest[] = [];
  const result = await runInVm({
    ...guestJob(options),
    prepare: (jobDir) => {
      mkdirSync(join(jobDir, 'inputs'));
      for (const [name, content] of Object.entries(options.inputs ?? {}))
        writeFileSync(join(jobDir, 'inputs', basename(name)), content);
    },
    // A config whose json reporter names its own outputFile wins over the command line's: copy that
    // report into the job share too (the guest's writes stay in its overlay otherwise).
    command: [
      'sh',
      '-c',
      `"$@"; rc=$?; [ -f ${jobMount}/report.json ] || cp .vitest-report.json ${jobMount}/report.json 2>/dev/null; exit $rc`,
      'vitest',
      process.execPath,
      vitestBin(),
      'run',
      '--config',
      options.config,
      '--reporter=default',
      '--reporter=json',
      `--outputFile.json=${jobMount}/report.json`,
      // One emulated CPU: files one after another, and hooks/tests with budgets for emulation
      // (a native config's 60 s for a lab's set-up is too short under TCG on a loaded host).
      '--no-file-parallelism',
      '--hookTimeout=300000',
      '--testTimeout=180000',
      ...(options.testNamePattern === undefined ? [] : ['-t', options.testNamePattern]),
      ...(options.files ?? []),
    ],
    collect: (jobDir) => {
      const report = join(jobDir, 'report.json');
      if (existsSync(report)) tests = parseReport(readFileSync(report, 'utf8'));
    },
  });
  return { ...result, tests };
}

function vitestBin(): string {
  return join(dirname(createRequire(import.meta.url).resolve('vitest/package.json')), 'vitest.mjs');
}

interface JsonReport {
  readonly testResults?: readonly {
    readonly name: string;
    readonly assertionResults?: readonly {
      readonly fullName: string;
      readonly status: GuestTest['status'];
      readonly failureMessages?: readonly string[];
    }[];
  }[];
}

function parseReport(text: string): GuestTest[] {
  const report = JSON.parse(text) as JsonReport;
  return (report.testResults ?? []).flatMap((file) =>
    (file.assertionResults ?? []).map((test) => ({
      file: file.name,
      fullName: test.fullName,
      status: test.status,
      failureMessages: test.failureMessages ?? [],
    })),
  );
}
