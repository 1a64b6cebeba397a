import { existsSync, readFileSync } from 'node:fs';
import { GUEST_REPORT_ENV } from '../guest/suite.js';
import type { KernelId } from './kernels.js';
import { guestJob, type GuestTest, type VitestInVmResult } from './vitest-in-vm.js';
import { jobMount, runInVm } from './vm.js';

export interface ScriptInVmOptions {
  readonly kernel?: KernelId;
  /** The guest's working directory (a package folder). */
  readonly packageDir: string;
  /** A script `node` runs as it is (a bundle: `bundleForGuest`), which reports through `runGuestSuite`. */
  readonly script: string;
  readonly args?: readonly string[];
  readonly env?: Readonly<Record<string, string>>;
  readonly timeoutMs?: number;
  readonly onOutput?: (chunk: string) => void;
}

/**
 * Runs one script with plain `node` inside one VM and returns each case's outcome as
 * `runVitestInVm` does (`runGuestSuite` writes the report): for a guest whose cases cost less than
 * starting vitest and transforming TypeScript under emulation. The guest env is `runVitestInVm`'s.
 */
export async function runScriptInVm(options: ScriptInVmOptions): Promise<VitestInVmResult> {
  let tests: GuestTest[] = [];
  const result = await runInVm({
    ...guestJob(options, { [GUEST_REPORT_ENV]: `${jobMount}/report.json` }),
    command: [process.execPath, options.script, ...(options.args ?? [])],
    collect: (jobDir) => {
      const report = `${jobDir}/report.json`;
      if (existsSync(report)) tests = (JSON.parse(readFileSync(report, 'utf8')) as { tests: GuestTest[] }).tests;
    },
  });
  return { ...result, tests };
}
