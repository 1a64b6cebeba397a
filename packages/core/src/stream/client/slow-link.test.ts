/**
 * A large state over a slow link: gRPC hands a message over only once it is complete and the
 * server's heartbeats wait behind it, so the client's idle timer must count bytes, not messages;
 * and bytes must come at a least rate (`MIN_BYTES_PER_WINDOW` per idle timeout) on both ends: a
 * client cuts a server that trickles, a server closes a call whose client takes a state too
 * slowly. A real stream server behind a loopback link the test meters out (a unix-socket proxy
 * that forwards the server's bytes only when told; HTTP/2 flow control then holds the server's
 * writes); the client's idle timer and the server's drain bound run on fake clocks, so each window
 * passes exactly when the test says and no assertion depends on real time.
 */
import { createServer, connect as netConnect, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { NodeLocalState } from '../../nodeview/types.js';
import { RecordingLogger } from '../../sync/recording-logger.js';
import { FakeClock } from '../../util/fake-clock.js';
import { decodeLocalState } from '../codec/local-decode.js';
import { StateHub } from '../hub.js';
import { drainBoundMs, MIN_BYTES_PER_WINDOW } from '../min-progress.js';
import { serveLocalState } from '../server/local-server.js';
import type { ServeOptions } from '../server/stream-server.js';
import { streamClientRefusedTotal } from '../../metrics/stream-client.js';
import { everything, harness } from '../testdata/harness.js';
import { syntheticLocalState } from '../testing-fixtures.js';
import { watchLocalState } from './client.js';
import { GrpcStateSource } from './grpc-source.js';

const IDLE_MS = 15_000;
/** ~1 MB encoded: many times the least bytes per window. */
const SHAPE = { services: 2000, endpointsPerService: 10 };
/** A slow but honest link: 1.5 times the least bytes per window. */
const HONEST = (3 * MIN_BYTES_PER_WINDOW) / 2;
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

/** What the server side saw: refusals (`api:reason`), the bytes of each state it wrote, its log. */
interface ServerSide {
  readonly refused: string[];
  readonly statesSent: number[];
  readonly log: RecordingLogger;
  pendingBytes(): number;
}

/** A real local stream server holding a ~1 MB state, behind a slow link. */
async function slowCore(
  options: Pick<ServeOptions<NodeLocalState>, 'clock' | 'drainWindowMs'> = {},
): Promise<{ link: SlowLink; address: string; server: ServerSide }> {
  const dir = await h.dir();
  const hub = new StateHub<NodeLocalState>({ instanceId: 'core' });
  const side = { refused: [] as string[], statesSent: [] as number[], log: new RecordingLogger() };
  const server = h.server(
    await serveLocalState({
      logger: side.log,
      hub,
      address: `unix://${join(dir, 'core.sock')}`,
      // No heartbeat during the test: only the state's own bytes cross the link.
      heartbeatIntervalMs: 3_600_000,
      observer: {
        clientConnected() {},
        clientDisconnected() {},
        stateSent: (_api, { bytes }) => void side.statesSent.push(bytes),
        streamRefused: (api, reason) => void side.refused.push(`${api}:${reason}`),
      },
      ...options,
    }),
  );
  hub.publish(syntheticLocalState(SHAPE), everything);
  const link = await SlowLink.open(join(dir, 'link.sock'), server.address.slice('unix://'.length));
  links.push(link);
  return {
    link,
    address: `unix://${join(dir, 'link.sock')}`,
    server: { ...side, pendingBytes: () => server.pendingBytes() },
  };
}

/**
 * A source on a fake clock asking for its first state through a link that lets nothing through
 * unless told; the server's drain bound on `clocks.server` (a window of IDLE_MS) when given.
 */
async function meteredFirstState(clocks: { readonly client?: FakeClock; readonly server?: FakeClock } = {}) {
  const { link, address, server } = await slowCore(
    clocks.server ? { clock: clocks.server, drainWindowMs: IDLE_MS } : {},
  );
  link.allowances.push(0);
  const clock = clocks.client ?? new FakeClock();
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
  return { link, leg: link.legs[0]!, clock, s, delivery, server };
}

/**
 * Lets `bytes` more of the server's bytes through and waits until they all went (the server sends
 * more as HTTP/2 flow control lets it, a window at a time) and the client read them, or until
 * `done()` (the state complete: the server has nothing more to send).
 */
async function pass(
  link: SlowLink,
  leg: Leg,
  s: GrpcStateSource<NodeLocalState>,
  bytes: number,
  done: () => boolean = () => false,
): Promise<void> {
  await vi.waitFor(() => expect(done() || link.held(leg) > 0).toBe(true), EVENTUALLY);
  link.release(leg, bytes);
  await vi.waitFor(
    () => expect(done() || (leg.allowance === 0 && s.bytesReceived() === leg.forwarded)).toBe(true),
    EVENTUALLY,
  );
}

/** `kpng_stream_client_refused_total{api="local", reason}` now. */
async function clientRefused(reason: string): Promise<number> {
  const metric = await streamClientRefusedTotal.get();
  return metric.values.find((v) => v.labels['api'] === 'local' && v.labels['reason'] === reason)?.value ?? 0;
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
  it('arrives whole across many idle timeouts at 1.5 times the least rate: neither end cuts the stream', async () => {
    // One clock for both ends: each window is an idle timeout of the client and a drain window of the server.
    const clock = new FakeClock();
    const { link, leg, s, delivery, server } = await meteredFirstState({ client: clock, server: clock });

    let idleTimeouts = 0;
    while (!delivery.settled) {
      const messagesBefore = s.messagesReceived();
      await pass(link, leg, s, HONEST, () => delivery.settled);
      if (delivery.settled) break;
      // A message completed in these bytes (the stream's first heartbeat) re-arms the idle timer, whose
      // window then starts after them: only a window that holds the released bytes is ticked through.
      if (s.messagesReceived() !== messagesBefore) continue;
      // A whole idle timeout passes with only these bytes: the stream lives on (its timer armed again;
      // the server's drain bound for the state falls due later).
      await clock.tick(IDLE_MS);
      idleTimeouts++;
      await vi.waitFor(() => expect(delivery.settled || clock.msUntilNextTimer() === IDLE_MS).toBe(true), EVENTUALLY);
    }

    expect(delivery.error).toBeUndefined();
    expect(delivery.value?.state.services).toHaveLength(SHAPE.services);
    expect(leg.forwarded).toBeGreaterThan(1024 * 1024);
    // The state took ~11 idle timeouts to arrive, on one connection.
    expect(idleTimeouts).toBeGreaterThanOrEqual(10);
    expect(link.legs).toHaveLength(1);
    expect(server.refused).toEqual([]);
  });

  it('is cut after one idle timeout without a byte when the peer stalls mid-state', async () => {
    const { link, leg, clock, s, delivery } = await meteredFirstState();

    // A third of the state arrives, then the link stalls.
    while (leg.forwarded < 350 * 1024) await pass(link, leg, s, 64 * 1024);
    await clock.tick(IDLE_MS);
    expect(delivery.settled).toBe(false); // bytes came during that timeout
    const before = await clientRefused('idle');
    await clock.tick(IDLE_MS);
    await vi.waitFor(() => expect(delivery.settled).toBe(true), EVENTUALLY);
    expect(delivery.error).toMatchObject({ code: 'UNAVAILABLE', message: `no byte from the server for ${IDLE_MS} ms` });
    expect(s.bytesReceived()).toBe(leg.forwarded);
    expect(await clientRefused('idle')).toBe(before + 1);
  });

  it.each([
    ['one byte', 1],
    ['one byte under the least', MIN_BYTES_PER_WINDOW - 1],
  ])(
    'is cut after one idle timeout in which the server trickles %s and completes no message, counted',
    async (_, trickle) => {
      const { link, leg, clock, s, delivery } = await meteredFirstState();
      // A third of the state arrives at a real link's pace, and a whole idle timeout passes with it.
      while (leg.forwarded < 350 * 1024) await pass(link, leg, s, 64 * 1024);
      await clock.tick(IDLE_MS);
      expect(delivery.settled).toBe(false);

      const before = await clientRefused('slow');
      await pass(link, leg, s, trickle);
      await clock.tick(IDLE_MS);
      await vi.waitFor(() => expect(delivery.settled).toBe(true), EVENTUALLY);
      expect(delivery.error).toMatchObject({
        code: 'UNAVAILABLE',
        message: `the server sent ${trickle} bytes in ${IDLE_MS} ms and completed no message (the least is ${MIN_BYTES_PER_WINDOW})`,
      });
      expect(await clientRefused('slow')).toBe(before + 1);
      expect(link.legs).toHaveLength(1);
    },
  );

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
    // The window that cut it held no byte, or (the first heartbeat re-armed the timer part-way through
    // the 200 KiB) the bytes after that heartbeat, fewer than the least.
    expect(lost()[0]!.fields).toMatchObject({
      attempt: 1,
      err: expect.objectContaining({
        message: expect.stringMatching(
          new RegExp(
            `^(no byte from the server for ${IDLE_MS} ms|the server sent \\d+ bytes in ${IDLE_MS} ms and completed no message)`,
          ),
        ),
      }),
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

describe('a client that takes a state under the least rate', () => {
  it("has its call closed by the server at the drain bound, counted and logged once, the state's bytes dropped", async () => {
    // Only the server's clock moves: the client never cuts the stream itself here.
    const serverClock = new FakeClock();
    const { link, leg, s, delivery, server } = await meteredFirstState({ server: serverClock });
    // The server's HTTP/2 settings must reach the client before it sends its request.
    await pass(link, leg, s, 1024);
    await vi.waitFor(() => expect(server.statesSent).toHaveLength(1), EVENTUALLY);
    // One window, plus one per 64 KiB of the ~1 MB state: about 17 windows.
    const bound = drainBoundMs(server.statesSent[0]!, IDLE_MS);
    expect(bound).toBeGreaterThan(10 * IDLE_MS);

    // The client takes 1 KiB per window, a 64th of the least: the server waits out the bound.
    let elapsed = 0;
    while (elapsed + IDLE_MS < bound) {
      await pass(link, leg, s, 1024);
      await serverClock.tick(IDLE_MS);
      elapsed += IDLE_MS;
    }
    await serverClock.tick(bound - 1 - elapsed);
    expect(server.refused).toEqual([]);
    expect(server.pendingBytes()).toBeGreaterThan(0);

    await serverClock.tick(1);
    await vi.waitFor(() => expect(server.pendingBytes()).toBe(0), EVENTUALLY);
    expect(server.refused).toEqual(['local:slow_client']);
    expect(
      server.log.records.filter(
        (r) => r.msg === 'closing a state stream: its client did not take a message within its bound',
      ),
    ).toHaveLength(1);
    // The reset reaches the client behind the bytes the link still holds: its call fails, no state.
    link.release(leg, Infinity);
    await vi.waitFor(() => expect(delivery.settled).toBe(true), EVENTUALLY);
    expect(delivery.value).toBeUndefined();
    expect(delivery.error).toBeDefined();
  });
});
