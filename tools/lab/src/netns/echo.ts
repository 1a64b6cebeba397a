import type { NetworkNamespace } from './namespace.js';
import { labScript } from './scripts.js';
import type { SpawnedProcess } from './spawned.js';
import { scaledTimeout } from './timeout-scale.js';

export interface EchoOptions {
  /** TCP ports where connections stay open and every line is answered with `NAME LINE`. */
  readonly holdPorts?: readonly number[];
}

export interface EchoServer {
  readonly name: string;
  readonly ports: readonly number[];
  readonly holdPorts: readonly number[];
  readonly process: SpawnedProcess;
  stop(): Promise<void>;
}

/**
 * An echo server's start (node's own start, then its listeners): 10 s was too little in the VM's guest on a
 * host at load ~35 (30 s scaled); a bound against a hang, taken through the VM's scale.
 */
const READY_TIMEOUT_MS = 30_000;

const validPort = (port: number): boolean => Number.isInteger(port) && port >= 1 && port <= 65535;

/**
 * Starts the lab echo server inside `namespace`: TCP and UDP on every port, IPv4 and IPv6, each
 * answered with `NAME CLIENT_IP` (then TCP connections are closed); TCP on `holdPorts` keeps
 * connections open and answers every line `L` with `NAME L`. Resolves once it listens; stopped
 * with the namespace.
 */
export async function startEchoServer(
  namespace: NetworkNamespace,
  name: string,
  ports: readonly number[],
  options: EchoOptions = {},
): Promise<EchoServer> {
  if (!/^[A-Za-z0-9_.-]+$/.test(name)) throw new Error(`echo server name ${JSON.stringify(name)} must be one word`);
  const holdPorts = options.holdPorts ?? [];
  if (ports.length + holdPorts.length === 0 || [...ports, ...holdPorts].some((port) => !validPort(port))) {
    throw new Error(`invalid echo server ports ${JSON.stringify({ ports, holdPorts })}`);
  }
  if (holdPorts.some((port) => ports.includes(port))) throw new Error('a port cannot be both an echo and a hold port');
  const argv = [globalThis.process.execPath, labScript('echo-server.mjs'), name, ports.join(',')];
  if (holdPorts.length > 0) argv.push(holdPorts.join(','));
  const process = namespace.spawn(argv);
  try {
    await process.waitForOutput('ready\n', scaledTimeout(READY_TIMEOUT_MS));
  } catch (error) {
    await process.stop();
    throw error;
  }
  return { name, ports, holdPorts, process, stop: () => process.stop() };
}
