// The status poller's verdicts against a loopback server: a prompt answer is counted, an answer later
// than the deadline is a timeout (its failure line says when it was sent and how late the poller's own
// deadline timer ran), a refused connection before the first answer is "not listening yet".
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { HealthPoll } from './health-poll.js';

const servers: Server[] = [];
afterEach(() => {
  for (const server of servers.splice(0)) (server.closeAllConnections(), server.close());
});

async function serve(delayMs: number): Promise<string> {
  const server = createServer((_req, res) => {
    setTimeout(() => res.end('ok'), delayMs);
  });
  servers.push(server);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/healthz`;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

describe('HealthPoll', () => {
  it('counts prompt answers and calls an answer past the deadline a timeout', async () => {
    const prompt = await serve(0);
    const slow = await serve(1_500);
    const poll = new HealthPoll([prompt, slow], 50, 300);
    // Long enough for the slow URL's first request to pass its deadline and its verdict turns.
    await sleep(1_200);
    const [fast, late] = await poll.stop();
    expect(fast!.answered).toBeGreaterThan(0);
    expect(fast!.failures).toEqual([]);
    expect(late!.answered).toBe(0);
    expect(late!.failures[0]).toMatch(/^timeout \(sent \d\d:\d\d:\d\d\.\d{3}, deadline timer -?\d+ ms late\)$/);
  });

  it('a port that refuses before any answer is not listening yet, not a failure', async () => {
    const url = await serve(0);
    const server = servers.pop()!;
    server.close();
    await once(server, 'close');
    const poll = new HealthPoll([url], 50, 300);
    await sleep(300);
    const [answers] = await poll.stop();
    expect(answers!.failures).toEqual([]);
    expect(answers!.beforeListening).toBeGreaterThan(0);
  });
});
