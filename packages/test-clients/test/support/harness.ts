import { EventEmitter } from 'node:events';
import { createServer, type AddressInfo } from 'node:net';
import { Registry } from 'prom-client';
import type { RunDeps } from '../../src/clients/runner.js';
import type { Dialer } from '../../src/probe/dialer.js';
import { MemoryLog } from './log.js';

/** A port that was free on 127.0.0.1 a moment ago. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export interface RunningClient {
  readonly log: MemoryLog;
  readonly registry: Registry;
  readonly port: number;
  /** GET /metrics from the client's own server (127.0.0.1). */
  metrics(): Promise<string>;
  /** SIGTERM; resolves with the exit code. */
  stop(): Promise<number>;
  readonly exit: Promise<number>;
}

/**
 * Runs a client's real `main` (flags and all) inside the test process: metrics on 127.0.0.1,
 * logs captured, the probe through `dialer`, SIGTERM from the test.
 */
export async function startClient(
  main: (argv: readonly string[], deps?: RunDeps) => Promise<number>,
  argv: readonly string[],
  dialer: Dialer,
): Promise<RunningClient> {
  const port = await freePort();
  const log = new MemoryLog();
  const registry = new Registry();
  const signals = new EventEmitter();
  const exit = main([...argv, `-MetricsPort=${port}`, '-MetricsBindAddress=127.0.0.1'], {
    dialer,
    logSink: log.sink,
    registry,
    signals,
  });
  return {
    log,
    registry,
    port,
    exit,
    metrics: async () => (await fetch(`http://127.0.0.1:${port}/metrics`)).text(),
    stop: () => {
      signals.emit('SIGTERM');
      return exit;
    },
  };
}

/** The value of one sample line in Prometheus text (`name{labels} value`), or undefined. */
export function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}
