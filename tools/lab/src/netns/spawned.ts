import { spawnChild, type SpawnedChild } from '@kpng/kit';
import { scaledTimeout } from './timeout-scale.js';

const KEEP_OUTPUT_CHARS = 64 * 1024;
const STOP_GRACE_MS = 2_000;

/** A long-running process started inside a namespace (an echo server, a proxy under test). */
export class SpawnedProcess {
  readonly #subprocess: SpawnedChild;
  readonly #exited: Promise<void>;
  #output = '';
  #exitCode: number | undefined;
  #hasExited = false;
  readonly #waiters = new Set<() => void>();

  constructor(argv: readonly string[]) {
    const collect = (chunk: Buffer): void => {
      this.#output = (this.#output + chunk.toString()).slice(-KEEP_OUTPUT_CHARS);
      for (const wake of this.#waiters) wake();
    };
    this.#subprocess = spawnChild(argv, { onStdout: collect, onStderr: collect });
    this.#exited = this.#subprocess.exited.then((exit) => {
      // A program that could not start says so in the output, as a shell would.
      if (exit.error !== undefined) this.#output += exit.error.message;
      this.#exitCode = exit.exitCode ?? undefined;
      this.#hasExited = true;
      for (const wake of this.#waiters) wake();
    });
  }

  get pid(): number | undefined {
    return this.#subprocess.pid;
  }

  /** stdout and stderr interleaved (the last 64 KiB), for assertions and failure messages. */
  get output(): string {
    return this.#output;
  }

  get exited(): boolean {
    return this.#hasExited;
  }

  get exitCode(): number | undefined {
    return this.#exitCode;
  }

  /** Resolves once the output contains `text`; rejects on exit or after `timeoutMs` (default 5 s, in the VM scaled). */
  waitForOutput(text: string, timeoutMs = scaledTimeout(5_000)): Promise<void> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => finish(new Error(`no ${JSON.stringify(text)} within ${timeoutMs} ms; output: ${this.#output}`)),
        timeoutMs,
      );
      const finish = (error?: Error): void => {
        clearTimeout(timer);
        this.#waiters.delete(check);
        if (error === undefined) resolve();
        else reject(error);
      };
      const check = (): void => {
        if (this.#output.includes(text)) finish();
        else if (this.#hasExited)
          finish(new Error(`exited (code ${this.#exitCode}) before printing ${JSON.stringify(text)}: ${this.#output}`));
      };
      this.#waiters.add(check);
      check();
    });
  }

  /** SIGTERM, then SIGKILL after a grace period; resolves once the process is gone. */
  async stop(): Promise<void> {
    if (this.#hasExited) return;
    this.#subprocess.kill('SIGTERM');
    const exitedInTime = await Promise.race([this.#exited.then(() => true), delay(STOP_GRACE_MS).then(() => false)]);
    if (!exitedInTime) {
      this.#subprocess.kill('SIGKILL');
      await Promise.race([this.#exited, delay(STOP_GRACE_MS)]);
    }
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
