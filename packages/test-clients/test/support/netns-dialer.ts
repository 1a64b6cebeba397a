import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { eachLine, inNetns, spawnChild, type SpawnedChild } from '@kpng/kit';
import type { NetworkNamespace } from '@kpng/lab';
import ts from 'typescript';
import type { DialRequest, DialResult, Dialer } from '../../src/probe/dialer.js';

const HELPER = fileURLToPath(new URL('./netns-dial-helper.mjs', import.meta.url));
const TCP_DIALER = fileURLToPath(new URL('../../src/probe/tcp-dialer.ts', import.meta.url));
const READY_TIMEOUT_MS = 10_000;

/**
 * A Dialer whose connections start inside a lab namespace (a "client pod"), while the client that
 * uses it runs in the test process. A helper process in the namespace runs the package's own
 * `tcpDialer` (this file transpiles `src/probe/tcp-dialer.ts` for it, so the probe under test is the
 * real one) and answers over a pipe; the round trip adds well under a millisecond.
 */
export class NetnsDialer implements Dialer {
  #next = 0;
  readonly #waiting = new Map<number, (result: DialResult) => void>();
  #markReady!: () => void;
  readonly #ready = new Promise<void>((resolve) => (this.#markReady = resolve));
  #exited = false;
  private readonly child: SpawnedChild;

  private constructor(
    argv: readonly string[],
    private readonly scratch: string,
  ) {
    this.child = spawnChild(argv, {
      input: true,
      onStdout: eachLine((line) => {
        if (line === 'ready') return this.#markReady();
        const { id, result } = JSON.parse(line) as { id: number; result: DialResult };
        this.#waiting.get(id)?.(result);
        this.#waiting.delete(id);
      }),
      onStderr: (chunk) => process.stderr.write(chunk),
    });
    void this.child.exited.then(() => {
      this.#exited = true;
      for (const resolve of this.#waiting.values()) resolve({ ok: false, error: 'helper-exited' });
      this.#waiting.clear();
    });
  }

  static async start(namespace: NetworkNamespace): Promise<NetnsDialer> {
    const scratch = await mkdtemp(join(tmpdir(), 'kpng-netns-dialer-'));
    const module = join(scratch, 'tcp-dialer.mjs');
    const source = await readFile(TCP_DIALER, 'utf8');
    const { outputText } = ts.transpileModule(source, {
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
    });
    await writeFile(module, outputText);
    // `ip netns exec` into the test's own namespace only.
    const dialer = new NetnsDialer(inNetns(namespace.name, [process.execPath, HELPER, module]), scratch);
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`netns dialer in ${namespace.name} not ready within ${READY_TIMEOUT_MS} ms`)),
        READY_TIMEOUT_MS,
      );
      void dialer.child.exited.then((exit) => reject(new Error(`netns dialer exited with ${exit.exitCode}`)));
      void dialer.#ready.then(() => {
        clearTimeout(timer);
        resolve();
      });
    }).catch(async (error: unknown) => {
      await dialer.close();
      throw error;
    });
    return dialer;
  }

  dial(request: DialRequest): Promise<DialResult> {
    if (request.signal?.aborted) return Promise.resolve({ ok: false, error: 'aborted' });
    const id = this.#next++;
    return new Promise<DialResult>((resolve) => {
      const onAbort = (): void => void this.child.write(`${JSON.stringify({ id, abort: true })}\n`);
      this.#waiting.set(id, (result) => {
        request.signal?.removeEventListener('abort', onAbort);
        resolve(result);
      });
      request.signal?.addEventListener('abort', onAbort, { once: true });
      const { host, port, timeoutMs, readReply, send } = request;
      this.child.write(`${JSON.stringify({ id, host, port, timeoutMs, readReply, send })}\n`);
    });
  }

  /** Stops the helper (closing its stdin ends it; SIGTERM if it lingers) and removes the scratch files. */
  async close(): Promise<void> {
    if (!this.#exited) {
      this.child.endInput();
      const timer = setTimeout(() => this.child.kill('SIGTERM'), 2_000);
      await this.child.exited;
      clearTimeout(timer);
    }
    await rm(this.scratch, { recursive: true, force: true });
  }
}
