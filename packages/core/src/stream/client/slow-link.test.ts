/**
 * A large state over a slow link: gRPC hands a message over only once it is complete and the
 * server's heartbeats wait behind it, so the client's idle timer must count bytes, not messages. A
 * real stream server behind a loopback link the test meters out (a unix-socket proxy that forwards
 * the server's bytes only when told); the client's idle timer runs on a fake clock, so each
 * idle timeout passes exactly when the test says and no assertion depends on real time.
 */
import { createServer, connect as netConnect, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { NodeLocalState } from '../../nodeview/types.js';
import { RecordingLogger } from '../../sync/recording-logger.js';
import { FakeClock } from '../../util/fake-clock.js';
import { decodeLocalState } from '../codec/local-decode.js';
import { StateHub } from '../hub.js';
import { serveLocalState } from '../server/local-server.js';
import { everything, harness } from '../testdata/harness.js';
import { syntheticLocalState } from '../testing-fixtures.js';
import { watchLocalState } from './client.js';
import { GrpcStateSource } from './grpc-source.js';

const IDLE_MS = 15_000;
/** ~1 MB encoded: many times the 64 KiB released per idle timeout. */
const SHAPE = { services: 2000, endpointsPerService: 10 };
/** Events on loopback, not a measurement: generous for a loaded machine. */
const EVENTUALLY = { timeout: 20_000, interval: 5 };

/** One client connection through the link: what the server sent and how much of it was let through. */
interface Leg {
  readonly client: Socket;
  readonly upstream: Socket;
  readonly held: Buffer[];
  forwarded: number;
  /** Bytes the link still lets through as they come; Infinity: an open link. */
  allowance: number;
}

/** A unix-socket link to `target` that passes the client's bytes at once and the server's as metered. */
class SlowLink {
  readonly legs: Leg[] = [];
  /** Allowance of each new connection, in order of connection; Infinity after the list. */
  readonly allowances: number[] = [];
  readonly #server: Server;

  private constructor(server: Server) {
    this.#server = server;
  }

  static async open(path: string, target: string): Promise<SlowLink> {
    const link = new SlowLink(createServer((client) => link.#accept(client, target)));
    await new Promise<void>((resolve) => link.#server.listen(path, resolve));
    return link;
  }

  #accept(client: Socket, target: string): void {
    const upstream = netConnect(target);
    const leg: Leg = { client, upstream, held: [], forwarded: 0, allowance: this.allowances.shift() ?? Infinity };
    this.legs.push(leg);
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
    client.pipe(upstream);
    upstream.on('data', (chunk: Buffer) => {
      leg.held.push(chunk);
      this.#pass(leg);
    });
  }

  /** Bytes the server sent on `leg` that the link has not let through yet. */
  held(leg: Leg): number {
    return leg.held.reduce((n, b) => n + b.length, 0);
  }

  /** Lets up to `bytes` more of the server's bytes through on `leg` (now or as they come). */
  release(leg: Leg, bytes: number): void {
    leg.allowance += bytes;
    this.#pass(leg);
  }

  #pass(leg: Leg): void {
    while (leg.allowance > 0 && leg.held.length > 0) {
      const head = leg.held[0]!;
      const part = head.subarray(0, Math.min(head.length, leg.allowance));
      if (part.length === head.length) leg.held.shift();
      else leg.held[0] = head.subarray(part.length);
      leg.client.write(part);
      leg.forwarded += part.length;
      leg.allowance -= part.length;
    }
  }

  async close(): Promise<void> {
    for (const leg of this.legs) {
      leg.client.destroy();
      leg.upstream.destroy();
    }
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }
}

const h = harness();
const links: SlowLink[] = [];
const sources: GrpcStateSource<NodeLocalState>[] = [];
afterEach(async () => {
  for (const s of sources.splice(0)) s.close();
  await Promise.all(links.splice(0).map((l) => l.close()));
  await h.cleanup();
});

/** A real local stream server holding a ~1 MB state, behind a slow link. */
async function slowCore(): Promise<{ link: SlowLink; address: string }> {
  const dir = await h.dir();
  const hub = new StateHub<NodeLocalState>({ instanceId: 'core' });
  const server = h.server(
    await serveLocalState({
      logger: new RecordingLogger(),
      hub,
      address: `unix://${join(dir, 'core.sock')}`,
      // No heartbeat during the test: only the state's own bytes cross the link.
      heartbeatIntervalMs: 3_600_000,
    }),
  );
  hub.publish(syntheticLocalState(SHAPE), everything);
  const link = await SlowLink.open(join(dir, 'link.sock'), server.address.slice('unix://'.length));
  links.push(link);
  return { link, address: `unix://${join(dir, 'link.sock')}` };
}

/** A source on a fake clock asking for its first state through a link that lets nothing through unless told. */
async function meteredFirstState() {
  const { link, address } = await slowCore();
  link.allowances.push(0);
  const clock = new FakeClock();
  const s = new GrpcStateSource<NodeLocalState>(
    'local',
    address,
    (buf, start, end) => decodeLocalState(buf, start, end),
    {
      clock,
      idleTimeoutMs: IDLE_MS,
    },
  );
  sources.push(s);
  const delivery = settlement(s.next(undefined));
  await vi.waitFor(() => expect(link.legs).toHaveLength(1), EVENTUALLY);
  return { link, leg: link.legs[0]!, clock, s, delivery };
}

/** Tracks a promise's outcome without awaiting it. */
function settlement<T>(p: Promise<T>): { value?: T; error?: unknown; settled: boolean } {
  const out: { value?: T; error?: unknown; settled: boolean } = { settled: false };
  p.then(
    (value) => Object.assign(out, { value, settled: true }),
    (error: unknown) => Object.assign(out, { error, settled: true }),
  );
  return out;
}

describe('a large state over a slow link', () => {
  it('arrives whole across many idle timeouts while bytes keep coming', async () => {
    const { link, leg, clock, s, delivery } = await meteredFirstState();

    let idleTimeouts = 0;
    while (!delivery.settled) {
      // The server writes as HTTP/2 flow control lets it: wait for its next bytes (or the state).
      await vi.waitFor(() => expect(delivery.settled || link.held(leg) > 0).toBe(true), EVENTUALLY);
      if (delivery.settled) break;
      const dueBefore = clock.msUntilNextTimer();
      link.release(leg, 64 * 1024);
      await vi.waitFor(() => expect(s.bytesReceived()).toBe(leg.forwarded), EVENTUALLY);
      // A message completed in these bytes (the stream's first heartbeat) re-arms the idle timer, whose
      // window then starts after them: only a window that holds the released bytes is ticked through.
      if (clock.msUntilNextTimer() !== dueBefore) continue;
      // A whole idle timeout passes with only these bytes: the stream lives on.
      await clock.tick(IDLE_MS);
      idleTimeouts++;
      await vi.waitFor(() => expect(delivery.settled || clock.pendingTimers() === 1).toBe(true), EVENTUALLY);
    }

    expect(delivery.error).toBeUndefined();
    expect(delivery.value?.state.services).toHaveLength(SHAPE.services);
    expect(leg.forwarded).toBeGreaterThan(1024 * 1024);
    // The state took ~16 idle timeouts to arrive, on one connection.
    expect(idleTimeouts).toBeGreaterThanOrEqual(15);
    expect(link.legs).toHaveLength(1);
  });

  it('is cut after one idle timeout without a byte when the peer stalls mid-state', async () => {
    const { link, leg, clock, s, delivery } = await meteredFirstState();

    // A third of the state arrives, then the link stalls.
    while (leg.forwarded < 350 * 1024) {
      await vi.waitFor(() => expect(link.held(leg)).toBeGreaterThan(0), EVENTUALLY);
      link.release(leg, 64 * 1024);
      await vi.waitFor(() => expect(s.bytesReceived()).toBe(leg.forwarded), EVENTUALLY);
    }
    await clock.tick(IDLE_MS);
    expect(delivery.settled).toBe(false); // bytes came during that timeout
    await clock.tick(IDLE_MS);
    await vi.waitFor(() => expect(delivery.settled).toBe(true), EVENTUALLY);
    expect(delivery.error).toMatchObject({ code: 'UNAVAILABLE', message: `no byte from the server for ${IDLE_MS} ms` });
    expect(s.bytesReceived()).toBe(leg.forwarded);
  });

  it('watchLocalState reconnects after a stall with backoff and gets the state over the next connection', async () => {
    const { link, address } = await slowCore();
    // The first connection stalls after 200 KiB of the server's bytes; the next is an open link.
    link.allowances.push(200 * 1024);
    const clock = new FakeClock();
    const log = new RecordingLogger();
    const states: NodeLocalState[] = [];
    h.watch((signal) =>
      watchLocalState(address, (state) => void states.push(state), {
        signal,
        logger: log,
        clock,
        idleTimeoutMs: IDLE_MS,
      }),
    );
    await vi.waitFor(() => expect(link.legs[0]?.forwarded).toBe(200 * 1024), EVENTUALLY);
    const lost = () => log.records.filter((r) => r.msg === 'state stream lost; reconnecting');

    // Idle timeouts pass until one finds no new byte (the second at the latest).
    for (let i = 0; i < 2 && lost().length === 0; i++) {
      await clock.tick(IDLE_MS);
      // Either the idle timer is armed again or the backoff's timer is (after the warning).
      await vi.waitFor(() => expect(clock.pendingTimers()).toBe(1), EVENTUALLY);
    }
    expect(lost()).toHaveLength(1);
    expect(lost()[0]!.fields).toMatchObject({
      attempt: 1,
      err: expect.objectContaining({ message: `no byte from the server for ${IDLE_MS} ms` }),
    });
    expect(link.legs).toHaveLength(1);
    // The reconnect waits for the backoff (100 ms, up to 20% jitter added) on the client's clock.
    const backoff = clock.msUntilNextTimer()!;
    expect(backoff).toBeGreaterThanOrEqual(100);
    expect(backoff).toBeLessThanOrEqual(120);
    await clock.tick(backoff - 1);
    expect(link.legs).toHaveLength(1);
    await clock.tick(1);
    await vi.waitFor(() => expect(states).toHaveLength(1), EVENTUALLY);
    expect(states[0]!.services).toHaveLength(SHAPE.services);
    expect(link.legs).toHaveLength(2);
  });
});
