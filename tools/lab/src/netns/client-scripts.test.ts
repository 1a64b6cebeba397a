// The lab client scripts' verdicts (steady-client.mjs, probe-client.mjs), on loopback (no namespace:
// the scripts are plain node). The client is frozen with SIGSTOP past its timeout while the server's
// answer waits in its socket, as a starved loop (a loaded host, a guest's one emulated CPU) leaves
// it: the answer is an answer, not a timeout.
import { once } from 'node:events';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { spawnChild } from '@kpng/kit';
import { labScript } from './scripts.js';
import type { SteadyResult } from './steady.js';

const servers: Server[] = [];
afterEach(() => {
  for (const server of servers.splice(0)) server.close();
});

async function listen(onConnection?: (socket: Socket) => void): Promise<number> {
  const server = createServer((socket) => {
    socket.on('error', () => undefined); // the client's end of a frozen or timed-out attempt
    onConnection?.(socket);
  });
  servers.push(server);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return (server.address() as AddressInfo).port;
}

/** One attempt (made at once; the run is over before the next is due). */
function steady(port: number, timeoutMs: number) {
  const request = { ip: '127.0.0.1', port, intervalMs: 50, durationMs: 1, timeoutMs };
  let out = '';
  const child = spawnChild([process.execPath, labScript('steady-client.mjs'), JSON.stringify(request)], {
    onStdout: (c) => (out += c.toString()),
    onStderr: (c) => process.stderr.write(c),
  });
  return {
    child,
    result: child.exited.then(() => JSON.parse(out) as SteadyResult),
  };
}

describe('steady-client', () => {
  it('an answer already in the socket when the client wakes past its timeout is an answer', async () => {
    let run: ReturnType<typeof steady> | undefined;
    const port = await listen((socket) => {
      // Frozen before it can read: the answer and the due timer meet in the same loop turn.
      run!.child.kill('SIGSTOP');
      socket.end('pod-b 127.0.0.1\n');
      setTimeout(() => run!.child.kill('SIGCONT'), 3_000);
    });
    // The timeout leaves this (loaded) test process time to freeze the client before it is due.
    run = steady(port, 1_500);
    const result = await run.result;
    expect(result).toMatchObject({ attempts: 1, failures: [], servers: ['pod-b'] });
  });

  it('a handshake without an answer is a timeout after connect; a refused port is refused', async () => {
    const port = await listen(); // accepts, never answers
    const silent = await steady(port, 200).result;
    expect(silent.failures.map((f) => f.error)).toEqual(['timeout after connect']);

    const closed = await listen();
    const gone = servers.pop()!;
    gone.close();
    await once(gone, 'close');
    const refused = await steady(closed, 200).result;
    expect(refused.failures.map((f) => f.error)).toEqual(['refused']);
  });
});

interface Attempt {
  ok: boolean;
  reply?: string;
  error?: string;
}

/** One TCP attempt from probe-client.mjs. */
function probeOnce(port: number, timeoutMs: number) {
  const request = { proto: 'tcp', ip: '127.0.0.1', port, timeoutMs, count: 1 };
  let out = '';
  const child = spawnChild([process.execPath, labScript('probe-client.mjs'), JSON.stringify(request)], {
    onStdout: (c) => (out += c.toString()),
    onStderr: (c) => process.stderr.write(c),
  });
  return { child, result: child.exited.then(() => (JSON.parse(out) as Attempt[])[0]) };
}

describe('probe-client', () => {
  it('an answer already in the socket when the client wakes past its timeout is an answer', async () => {
    let run: ReturnType<typeof probeOnce> | undefined;
    const port = await listen((socket) => {
      run!.child.kill('SIGSTOP');
      socket.end('pod-b 127.0.0.1\n');
      setTimeout(() => run!.child.kill('SIGCONT'), 3_000);
    });
    // The timeout leaves this (loaded) test process time to freeze the client before it is due.
    run = probeOnce(port, 1_500);
    expect(await run.result).toEqual({ ok: true, reply: 'pod-b 127.0.0.1' });
  });

  it('after a handshake a slow answer is an answer; no answer at all is still a timeout', async () => {
    // Answers after two timeouts: within the reply grace (five more timeouts).
    const slow = await listen((socket) => setTimeout(() => socket.end('pod-b 127.0.0.1\n'), 400));
    expect(await probeOnce(slow, 200).result).toEqual({ ok: true, reply: 'pod-b 127.0.0.1' });
    const silent = await listen(); // accepts, never answers
    expect(await probeOnce(silent, 100).result).toEqual({ ok: false, error: 'timeout' });
  });

  it('a closed port is refused', async () => {
    const closed = await listen();
    const gone = servers.pop()!;
    gone.close();
    await once(gone, 'close');
    expect(await probeOnce(closed, 200).result).toEqual({ ok: false, error: 'refused' });
  });
});
