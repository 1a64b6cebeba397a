import { eachLine, inNetns, spawnChild } from '@kpng/kit';
import type { NetworkNamespace } from './namespace.js';
import { labScript } from './scripts.js';

export interface HoldTarget {
  readonly ip: string;
  readonly port: number;
  /** Bounds connecting and each exchange; defaults to 2 s. */
  readonly timeoutMs?: number;
}

/**
 * One TCP connection kept open from inside a namespace (against an echo server's hold port), to
 * show that an established connection survives a rule change: `exchange` sends one line on the
 * SAME connection and resolves with the answer (`NAME LINE`). Close it (or delete the namespace).
 */
export interface HeldConnection extends AsyncDisposable {
  /** The answer to `line`; rejects with the reason (timeout, reset, closed...) when there is none. */
  exchange(line: string): Promise<string>;
  close(): Promise<void>;
}

const LINE = /^[^\r\n]*$/;
const STARTUP_BUDGET_MS = 10_000;

/** The child's stdout lines, waited for one at a time. */
class Lines {
  readonly #queue: string[] = [];
  #wake: (() => void) | undefined;
  #ended = false;

  push(line: string): void {
    this.#queue.push(line);
    this.#wake?.();
  }

  end(): void {
    this.#ended = true;
    this.#wake?.();
  }

  next(timeoutMs: number): Promise<string> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => finish(), timeoutMs);
      const finish = (): void => {
        clearTimeout(timer);
        this.#wake = undefined;
        const line = this.#queue.shift();
        if (line !== undefined) resolve(line);
        else reject(new Error(this.#ended ? 'hold client exited' : `no answer within ${timeoutMs} ms`));
      };
      this.#wake = () => {
        if (this.#queue.length > 0 || this.#ended) finish();
      };
      this.#wake();
    });
  }
}

/** Connects from `namespace`; rejects with the reason when the connection cannot be made. */
export async function holdConnection(namespace: NetworkNamespace, target: HoldTarget): Promise<HeldConnection> {
  const timeoutMs = target.timeoutMs ?? 2_000;
  const lines = new Lines();
  const child = spawnChild(
    inNetns(namespace.name, [
      process.execPath,
      labScript('hold-client.mjs'),
      target.ip,
      String(target.port),
      String(timeoutMs),
    ]),
    { input: true, onStdout: eachLine((line) => lines.push(line)) },
  );
  void child.exited.then(() => lines.end());
  const close = async (): Promise<void> => {
    child.endInput();
    const exited = await Promise.race([
      child.exited.then(() => true),
      new Promise<boolean>((r) => setTimeout(() => r(false), timeoutMs + 1_000)),
    ]);
    if (!exited) child.kill('SIGKILL');
    await child.exited;
  };
  const first = await lines.next(STARTUP_BUDGET_MS + timeoutMs).catch((error: Error) => `error ${error.message}`);
  if (first !== 'connected') {
    await close();
    throw new Error(`cannot hold a connection to ${target.ip}:${target.port}: ${first.replace(/^error /, '')}`);
  }
  let queue = Promise.resolve();
  return {
    exchange(line: string): Promise<string> {
      if (!LINE.test(line)) return Promise.reject(new Error('one line, without line breaks'));
      const turn = queue.then(async () => {
        child.write(`${line}\n`);
        const answer = await lines.next(timeoutMs + 1_000);
        if (!answer.startsWith('reply ')) throw new Error(answer.replace(/^error /, ''));
        return answer.slice('reply '.length);
      });
      queue = turn.then(
        () => undefined,
        () => undefined,
      );
      return turn;
    },
    close,
    [Symbol.asyncDispose]: close,
  };
}
