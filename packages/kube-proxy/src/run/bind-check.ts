/**
 * `bindAddressHardFail`: whether a server that cannot bind its port ends the process (true) or is
 * logged and left out (false, the default). Checked by binding the port once before starting.
 */
import { createServer } from 'node:net';
import type { Logger } from '@kpng/core';
import { parseListenAddress, type ListenAddress } from '@kpng/core/runtime';

export class BindError extends Error {
  override readonly name = 'BindError';
}

/** The address to serve on, undefined when disabled or (softly) unavailable. */
export async function serverAddress(
  what: string,
  address: string,
  hardFail: boolean,
  log: Logger,
): Promise<ListenAddress | undefined> {
  if (address === '') return undefined;
  const listen = parseListenAddress(address);
  if (listen.kind !== 'tcp') return undefined;
  const problem = await tryBind(listen.host, listen.port);
  if (problem === undefined) return listen;
  const message = `failed to start the ${what} server on ${address}: ${problem.message}`;
  if (hardFail) throw new BindError(message);
  log.error(`${message}; continuing without it (bindAddressHardFail is false)`);
  return undefined;
}

function tryBind(host: string, port: number): Promise<Error | undefined> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', (e) => resolve(e));
    server.listen({ host, port, exclusive: true }, () => server.close(() => resolve(undefined)));
  });
}
