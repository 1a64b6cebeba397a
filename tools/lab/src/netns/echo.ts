import type { NetworkNamespace } from './namespace.js';
import { labScript } from './scripts.js';
import type { SpawnedProcess } from './spawned.js';

export interface EchoServer {
  readonly name: string;
  readonly ports: readonly number[];
  readonly process: SpawnedProcess;
  stop(): Promise<void>;
}

const READY_TIMEOUT_MS = 10_000;

/**
 * Starts the lab echo server inside `namespace`: TCP and UDP on every port, IPv4 and IPv6, each
 * answered with `NAME CLIENT_IP`. Resolves once it listens; stopped with the namespace.
 */
export async function startEchoServer(namespace: NetworkNamespace, name: string, ports: readonly number[]): Promise<EchoServer> {
  if (!/^[A-Za-z0-9_.-]+$/.test(name)) throw new Error(`echo server name ${JSON.stringify(name)} must be one word`);
  if (ports.length === 0 || ports.some((port) => !Number.isInteger(port) || port < 1 || port > 65535)) {
    throw new Error(`invalid echo server ports ${JSON.stringify(ports)}`);
  }
  const process = namespace.spawn([globalThis.process.execPath, labScript('echo-server.mjs'), name, ports.join(',')]);
  try {
    await process.waitForOutput('ready\n', READY_TIMEOUT_MS);
  } catch (error) {
    await process.stop();
    throw error;
  }
  return { name, ports, process, stop: () => process.stop() };
}
