import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { spawnChild, type ProcessExit, type SpawnedChild } from '@kpng/kit';
import {
  freeLoopbackPort as freePort,
  HOSTILE_RAW_REQUESTS,
  HOSTILE_RAW_STATUSES,
  rawExchange,
  rawGet,
} from '../metrics/raw-http.js';

/**
 * The built `kpng` program (core with the log backend, the example cluster from a file) as a real
 * process, with few file descriptors (`ulimit -n 128`): raw malformed requests, a slowloris client
 * and more connections than it has descriptors go to its metrics and health ports; the same pid keeps
 * answering /healthz and /metrics correctly, and counts what it refused.
 * The kernel-programming programs (kpng-nft, kpng-iptables, the compat kube-proxy) get the same
 * requests in kube-proxy's `test/doors.e2e.test.ts`, in a lab namespace.
 */

const MAIN = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));
const CLUSTER = fileURLToPath(new URL('../../../../examples/cluster.yaml', import.meta.url));

let child: SpawnedChild | undefined;
/** Set once the program exited (it never should). */
let exit: ProcessExit | undefined;
let dir = '';
let metricsPort = 0;
let healthzPort = 0;
let logs = '';

beforeAll(async () => {
  expect(existsSync(MAIN), `${MAIN} is missing: build first (npx nx run-many -t build)`).toBe(true);
  dir = mkdtempSync(join(tmpdir(), 'kpng-doors-'));
  [metricsPort, healthzPort] = [await freePort(), await freePort()];
  const argv = [
    MAIN,
    `--file=${CLUSTER}`,
    '--node-name=node-a',
    '--backend=log',
    `--listen=unix://${join(dir, 'kpng.sock')}`,
    `--metrics-bind-address=127.0.0.1:${metricsPort}`,
    `--healthz-bind-address=127.0.0.1:${healthzPort}`,
  ];
  const quoted = [process.execPath, ...argv].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  const log = (d: Buffer): void => void (logs += d.toString());
  child = spawnChild(['sh', '-c', `ulimit -n 128 && exec ${quoted}`], { onStdout: log, onStderr: log });
  void child.exited.then((e) => (exit = e));
  // Bounded wait for the first answer (the program starts in well under a second on an idle machine).
  for (let i = 0; i < 300; i++) {
    if ((await rawGet(healthzPort, '/healthz').catch(() => undefined))?.status === 200) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`kpng did not answer /healthz:\n${logs}`);
}, 60_000);

afterAll(() => {
  child?.kill('SIGTERM');
  rmSync(dir, { recursive: true, force: true });
});

async function stillTheSameProcess(): Promise<void> {
  expect(exit, logs).toBeUndefined();
  const health = await rawGet(healthzPort, '/healthz');
  expect(health.status, logs).toBe(200);
  expect(JSON.parse(health.body)).toMatchObject({ nodeEligible: true });
  const metrics = await rawGet(metricsPort, '/metrics');
  expect(metrics.status).toBe(200);
  expect(metrics.body).toContain('# TYPE kpng_http_refused_requests_total counter');
}

describe('kpng (a real process) at its HTTP doors', () => {
  it.each(HOSTILE_RAW_REQUESTS)('survives $name on both ports', async ({ raw }) => {
    for (const port of [metricsPort, healthzPort]) {
      const reply = await rawExchange(port, raw, { waitMs: 5_000 });
      expect(HOSTILE_RAW_STATUSES).toContain(reply.status);
    }
    await stillTheSameProcess();
  });

  // The deadline is the behaviour: headers must arrive within 10 s; 40 s is generous for a loaded machine.
  it('cuts off a slowloris client that never finishes its headers', async () => {
    const reply = await rawExchange(healthzPort, 'GET /healthz HTTP/1.1\r\nHost: x\r\nX-a: b\r\n', { waitMs: 40_000 });
    expect(reply.ended).toBe('closed');
    await stillTheSameProcess();
    const metrics = await rawGet(metricsPort, '/metrics');
    expect(metrics.body).toMatch(/kpng_http_refused_requests_total\{server="healthz",reason="timeout"\} [1-9]/);
  }, 60_000);

  // 200 keep-alive connections, each with a request, against 128 descriptors: the process runs out
  // (EMFILE). libuv never reports a failed accept to Node: it accepts with a reserved descriptor and
  // closes at once (uv__emfile_trick), so no server 'error' fires and the process cannot count those
  // connections; this test counts them from the client side: closed without an answer. Once the
  // descriptors free up, the same process answers again.
  it('under EMFILE, closes what it cannot accept and serves again once descriptors free up', async () => {
    const held: Socket[] = [];
    let answered = 0;
    let unanswered = 0;
    try {
      for (let i = 0; i < 200; i++) {
        const s = connect(healthzPort, '127.0.0.1');
        let gotBytes = false;
        s.on('error', () => {});
        s.once('data', () => {
          gotBytes = true;
          answered++;
        });
        s.on('close', () => void (gotBytes || unanswered++));
        s.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
        held.push(s);
      }
      // Every connection is either answered (and kept alive, holding a descriptor) or closed unanswered.
      await vi.waitFor(() => expect(answered + unanswered).toBe(200), { timeout: 30_000, interval: 100 });
      expect(unanswered, 'some connections met EMFILE').toBeGreaterThan(0);
      expect(answered, 'the door served up to its descriptors').toBeGreaterThan(0);
    } finally {
      for (const s of held) s.destroy();
    }
    // The server sees the clients' closes and frees its descriptors (bounded: generous for a loaded machine).
    await vi.waitFor(async () => expect((await rawGet(healthzPort, '/healthz')).status).toBe(200), {
      timeout: 20_000,
      interval: 200,
    });
    await stillTheSameProcess();
    const metrics = await rawGet(metricsPort, '/metrics');
    expect(metrics.body).not.toMatch(/kpng_unexpected_errors_total\{[^}]*\} [1-9]/);
  }, 60_000);
});
