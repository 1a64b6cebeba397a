import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureKernel } from './fetch-kernel.js';
import { HOST_ROOT_TAG, JOB_MOUNT, JOB_TAG, jobScript } from './init-script.js';
import { ensureInitramfs } from './initramfs.js';
import { type KernelId, KERNELS } from './kernels.js';
import { killQemu, qemuArgs, spawnQemu } from './qemu.js';

export interface VmRunOptions {
  /** Defaults to `6.1`. */
  readonly kernel?: KernelId;
  readonly command: readonly string[];
  /** A host path; the guest sees the host's files at the same paths. Defaults to `process.cwd()`. */
  readonly cwd?: string;
  readonly env?: Readonly<Record<string, string>>;
  /** The whole run, boot included; QEMU is killed when it elapses. Defaults to 10 minutes. */
  readonly timeoutMs?: number;
  readonly memoryMiB?: number;
  readonly cpus?: number;
  /** The job's output as it arrives. */
  readonly onOutput?: (chunk: string) => void;
  /** Called with the host path of the job share before boot (files written there appear at `jobMount` in the guest). */
  readonly prepare?: (jobDir: string) => void;
  /** Called with the host path of the job share after the guest stopped, before it is deleted. */
  readonly collect?: (jobDir: string) => void;
}

export interface VmRunResult {
  readonly exitCode: number;
  readonly output: string;
  /** The guest's kernel console (ttyS0). */
  readonly console: string;
  /** `uname -r` of the guest. */
  readonly release: string;
}

export type VmFailure = 'timeout' | 'no-status' | 'qemu';

/** The guest did not finish its job: it panicked, hung, or QEMU failed. Carries the console for the why. */
export class VmError extends Error {
  constructor(
    readonly failure: VmFailure,
    message: string,
    readonly output: string,
    readonly console: string,
  ) {
    super(
      `${message}\n--- guest console (last lines) ---\n${tail(console, 40)}\n--- job output (last lines) ---\n${tail(output, 40)}`,
    );
    this.name = 'VmError';
  }
}

/** Where the job share is mounted inside the guest. */
export const jobMount = JOB_MOUNT;

const DEFAULT_TIMEOUT_MS = 600_000;

/**
 * Boots a Debian kernel under QEMU with the host's root shared read-only (tmpfs overlay on top), runs
 * one command inside, streams its output and returns its exit code. A panic or a job that never
 * finishes is a `VmError`, never a hang; QEMU never outlives the call.
 */
export async function runInVm(options: VmRunOptions): Promise<VmRunResult> {
  const kernel = await ensureKernel(KERNELS[options.kernel ?? '6.1']);
  const initramfs = await ensureInitramfs(kernel);
  const jobDir = mkdtempSync(join(tmpdir(), 'kpng-vm-'));
  try {
    writeFileSync(
      join(jobDir, 'job.sh'),
      jobScript({ command: options.command, cwd: options.cwd ?? process.cwd(), env: options.env ?? {} }),
    );
    options.prepare?.(jobDir);
    const consoleLog = join(jobDir, 'console.log');
    const args = qemuArgs({
      vmlinux: kernel.vmlinux,
      initramfs,
      jobDir,
      consoleLog,
      memoryMiB: options.memoryMiB ?? 1024,
      cpus: options.cpus ?? 1,
      hostRootTag: HOST_ROOT_TAG,
      jobTag: JOB_TAG,
    });
    const { output, qemuError, timedOut } = await boot(args, options.timeoutMs ?? DEFAULT_TIMEOUT_MS, options.onOutput);
    const console = existsSync(consoleLog) ? readFileSync(consoleLog, 'utf8') : '';
    const status = join(jobDir, 'status');
    if (timedOut)
      throw new VmError(
        'timeout',
        `guest ${kernel.release} did not finish within ${options.timeoutMs ?? DEFAULT_TIMEOUT_MS} ms`,
        output,
        console,
      );
    if (!existsSync(status)) {
      const why =
        qemuError !== ''
          ? `QEMU failed: ${qemuError.trim()}`
          : `guest ${kernel.release} stopped before the job finished${/Kernel panic/.test(console) ? ' (kernel panic)' : ''}`;
      throw new VmError(qemuError !== '' ? 'qemu' : 'no-status', why, output, console);
    }
    options.collect?.(jobDir);
    return { exitCode: Number(readFileSync(status, 'utf8').trim()), output, console, release: kernel.release };
  } finally {
    rmSync(jobDir, { recursive: true, force: true });
  }
}

interface BootResult {
  readonly output: string;
  readonly qemuError: string;
  readonly timedOut: boolean;
}

function boot(args: readonly string[], timeoutMs: number, onOutput?: (chunk: string) => void): Promise<BootResult> {
  let output = '';
  let stderr = '';
  let timedOut = false;
  const serial = new StringDecoder('utf8');
  const child = spawnQemu(args, {
    onStdout: (bytes) => {
      const chunk = serial.write(bytes);
      output += chunk;
      onOutput?.(chunk);
    },
    onStderr: (bytes) => (stderr += bytes.toString()),
  });
  const timer = setTimeout(() => {
    timedOut = true;
    killQemu(child);
  }, timeoutMs);
  return child.exited.then((exit) => {
    clearTimeout(timer);
    return {
      output,
      qemuError: exit.error?.message ?? (exit.exitCode !== 0 && !timedOut ? stderr : ''),
      timedOut,
    };
  });
}

function tail(text: string, lines: number): string {
  return text.split('\n').slice(-lines).join('\n');
}
