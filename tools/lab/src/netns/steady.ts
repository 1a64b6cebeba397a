import type { NetworkNamespace } from './namespace.js';
import { labScript } from './scripts.js';
import { scaledTimeout } from './timeout-scale.js';

export interface SteadyOptions {
  readonly ip: string;
  readonly port: number;
  /** A new connection this often (default 20 ms), whether or not the previous one has finished. */
  readonly intervalMs?: number;
  /** How long to keep connecting (at most 120 s). */
  readonly durationMs: number;
  /** Per connection; default 1 s. */
  readonly timeoutMs?: number;
}

export interface SteadyResult {
  /** Epoch ms of the first attempt. */
  readonly started: number;
  readonly attempts: number;
  /** Each failed attempt: when it started (epoch ms) and why (refused, timeout, reset, ...). */
  readonly failures: readonly { readonly at: number; readonly error: string }[];
  /** The echo servers that answered. */
  readonly servers: readonly string[];
}

const MAX_DURATION_MS = 120_000;

/**
 * New TCP connections at a steady rate from inside `namespace` for a while (the fault suite's
 * traffic while something breaks): one process, started at once; resolves when it has finished.
 */
export async function probeSteadily(namespace: NetworkNamespace, options: SteadyOptions): Promise<SteadyResult> {
  if (!(options.durationMs > 0 && options.durationMs <= MAX_DURATION_MS))
    throw new Error(`durationMs must be in (0, ${MAX_DURATION_MS}]`);
  const request = {
    ip: options.ip,
    port: options.port,
    intervalMs: options.intervalMs ?? 20,
    durationMs: options.durationMs,
    // Scaled like every lab probe: 3 s inside the lab's VM, where one emulated CPU runs the echo servers too.
    timeoutMs: scaledTimeout(options.timeoutMs ?? 1_000),
  };
  const { stdout } = await namespace.exec([process.execPath, labScript('steady-client.mjs'), JSON.stringify(request)], {
    timeoutMs: request.durationMs + request.timeoutMs + 10_000,
  });
  return JSON.parse(stdout) as SteadyResult;
}

/** Traffic started by `startSteadily`: `stop()` ends it and resolves with every attempt made. */
export interface SteadyTraffic {
  stop(): Promise<SteadyResult>;
}

/** The longest `startSteadily` run before it stops by itself (a bound for a test that never calls stop). */
const MAX_OPEN_DURATION_MS = 900_000;

/**
 * The same traffic as `probeSteadily`, for as long as the test needs it: one process, started at
 * once, until `stop()` (SIGTERM: no new connection, those under way finish and are counted). A test
 * brackets an event it awaits (a swap, a restart) without guessing its length in advance.
 */
export function startSteadily(namespace: NetworkNamespace, options: Omit<SteadyOptions, 'durationMs'>): SteadyTraffic {
  const request = {
    ip: options.ip,
    port: options.port,
    intervalMs: options.intervalMs ?? 20,
    durationMs: MAX_OPEN_DURATION_MS,
    timeoutMs: scaledTimeout(options.timeoutMs ?? 1_000),
  };
  const client = namespace.spawn([process.execPath, labScript('steady-client.mjs'), JSON.stringify(request)]);
  return {
    async stop() {
      if (client.pid !== undefined && !client.exited) process.kill(client.pid, 'SIGTERM');
      // The attempts under way finish within their timeout, then the client prints its one line.
      await client.waitForOutput('"servers"', request.timeoutMs + scaledTimeout(30_000));
      const line = client.output.trim().split('\n').at(-1) ?? '';
      return JSON.parse(line) as SteadyResult;
    },
  };
}
