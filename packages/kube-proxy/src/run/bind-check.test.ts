import { createServer, type Server } from 'node:net';
import { createLogger } from '@kpng/core';
import { afterEach, describe, expect, it } from 'vitest';
import { BindError, serverAddress } from './bind-check.js';

const lines: string[] = [];
const log = { ...createLogger(), error: (msg: string) => void lines.push(msg) };

async function occupy(): Promise<{ server: Server; port: number }> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as { port: number }).port };
}

describe('serverAddress', () => {
  let busy: Server | undefined;
  afterEach(async () => {
    lines.length = 0;
    await new Promise((resolve) => (busy ? busy.close(resolve) : resolve(undefined)));
    busy = undefined;
  });

  it('is undefined for a disabled server', async () => {
    expect(await serverAddress('metrics', '', true, log)).toBeUndefined();
  });

  it('returns a free address', async () => {
    const { server, port } = await occupy();
    await new Promise((resolve) => server.close(resolve));
    expect(await serverAddress('metrics', `127.0.0.1:${port}`, true, log)).toEqual({
      kind: 'tcp',
      host: '127.0.0.1',
      port,
    });
  });

  it('leaves a busy server out and logs it, unless bindAddressHardFail', async () => {
    const { server, port } = await occupy();
    busy = server;
    expect(await serverAddress('healthz', `127.0.0.1:${port}`, false, log)).toBeUndefined();
    expect(lines).toEqual([
      expect.stringMatching(
        new RegExp(`^failed to start the healthz server on 127.0.0.1:${port}: .*EADDRINUSE.*continuing without it`),
      ),
    ]);
    await expect(serverAddress('healthz', `127.0.0.1:${port}`, true, log)).rejects.toThrow(BindError);
  });
});
