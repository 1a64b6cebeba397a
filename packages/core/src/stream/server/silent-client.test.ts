/**
 * A client that asks and never reads: HTTP/2 flow control stops the server's writes once the
 * client's window is full, and the server must not queue more behind them (a state per request, a
 * heartbeat per interval) however many requests and revisions come.
 */
import { Client, credentials, type ClientDuplexStream, type ServiceError } from '@grpc/grpc-js';
import { connect, type ClientHttp2Session } from 'node:http2';
import { connect as netConnect } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { NodeLocalState } from '../../nodeview/types.js';
import { RecordingLogger } from '../../sync/recording-logger.js';
import { encodeWatchRequest } from '../codec/envelope.js';
import { encodeLocalStateResponse } from '../codec/local-encode.js';
import { StateHub } from '../hub.js';
import { WATCH_METHODS } from '../service-definitions.js';
import { changed, everything, harness } from '../testdata/harness.js';
import { syntheticLocalState } from '../testing-fixtures.js';
import { serveLocalState } from './local-server.js';

const h = harness();
const sessions: ClientHttp2Session[] = [];
afterEach(async () => {
  for (const s of sessions.splice(0)) s.destroy();
  await h.cleanup();
});

/** One gRPC length-prefixed message. */
function grpcFrame(message: Buffer): Buffer {
  const frame = Buffer.alloc(5 + message.length);
  frame.writeUInt32BE(message.length, 1);
  message.copy(frame, 5);
  return frame;
}

describe('a client that never reads', () => {
  it('holds at most one state and a heartbeat in the server while requests and revisions keep coming', async () => {
    const hub = new StateHub<NodeLocalState>({ instanceId: 'core' });
    let statesSent = 0;
    const observer = { clientConnected() {}, clientDisconnected() {}, stateSent: () => void statesSent++ };
    const path = `${await h.dir()}/s.sock`;
    const server = h.server(
      await serveLocalState({
        logger: new RecordingLogger(),
        hub,
        address: `unix://${path}`,
        observer,
        heartbeatIntervalMs: 10,
      }),
    );
    // ~1 MB per state: far over the client's 64 KiB HTTP/2 window.
    const state = (generation: number): NodeLocalState => {
      const s = syntheticLocalState({ services: 2000, endpointsPerService: 10 });
      return { ...s, node: { ...s.node, labels: { generation: String(generation) } } };
    };
    hub.publish(state(0), everything);
    const stateBytes = encodeLocalStateResponse({
      state: state(0),
      instanceId: 'core',
      revision: 1,
      changes: everything,
      full: true,
    }).length;
    expect(stateBytes).toBeGreaterThan(512 * 1024);

    const session = connect('http://localhost', { createConnection: () => netConnect(path) });
    sessions.push(session);
    session.on('error', () => {});
    const call = session.request({
      ':method': 'POST',
      ':path': WATCH_METHODS.local.path,
      'content-type': 'application/grpc',
      te: 'trailers',
    });
    call.on('error', () => {});
    call.pause(); // never read

    call.write(grpcFrame(encodeWatchRequest(undefined)));
    await vi.waitFor(() => expect(server.pendingBytes()).toBeGreaterThan(stateBytes / 2), { timeout: 10_000 });
    const most = { bytes: 0 };
    for (let revision = 2; revision <= 40; revision++) {
      hub.publish(state(revision), changed());
      // Every request is a credit for one more state.
      call.write(grpcFrame(encodeWatchRequest({ instanceId: 'core', revision: revision - 1 })));
      await new Promise((resolve) => setTimeout(resolve, 20)); // heartbeats fall due meanwhile
      most.bytes = Math.max(most.bytes, server.pendingBytes());
    }
    // The first state is still pending: nothing else was written behind it.
    expect(statesSent).toBe(1);
    expect(most.bytes).toBeLessThanOrEqual(stateBytes + 1024);
    expect(hub.revision).toBe(40);
  });
});

describe('the limit on open calls per peer', () => {
  it('refuses a call over it with RESOURCE_EXHAUSTED, counted; a call closing makes room again', async () => {
    const hub = new StateHub<NodeLocalState>({ instanceId: 'core' });
    const refused: string[] = [];
    const observer = {
      clientConnected() {},
      clientDisconnected() {},
      stateSent() {},
      streamRefused: (api: string, reason: string) => void refused.push(`${api}:${reason}`),
    };
    const logger = new RecordingLogger();
    const server = h.server(
      await serveLocalState({ logger, hub, address: `unix://${await h.dir()}/s.sock`, observer, maxStreamsPerPeer: 2 }),
    );
    const client = new Client(server.address, credentials.createInsecure());
    const m = WATCH_METHODS.local;
    const calls: { call: ClientDuplexStream<Buffer, Buffer>; errors: ServiceError[]; data: number }[] = [];
    const open = () => {
      const call = client.makeBidiStreamRequest(m.path, m.requestSerialize, m.responseDeserialize);
      const entry = { call, errors: [] as ServiceError[], data: 0 };
      call.on('error', (e: ServiceError) => entry.errors.push(e));
      call.on('data', () => entry.data++);
      calls.push(entry);
      return entry;
    };
    try {
      const [a, b] = [open(), open()];
      await vi.waitFor(() => expect(a.data + b.data).toBeGreaterThanOrEqual(2), { timeout: 10_000 }); // heartbeats
      const c = open();
      await vi.waitFor(() => expect(c.errors).toHaveLength(1), { timeout: 10_000 });
      expect(c.errors[0]!.code).toBe(8); // RESOURCE_EXHAUSTED
      expect(refused).toEqual(['local:peer_streams']);
      const d = open();
      await vi.waitFor(() => expect(d.errors).toHaveLength(1), { timeout: 10_000 });
      expect(refused).toHaveLength(2);
      expect(logger.records.filter((r) => r.msg.startsWith('refusing state stream calls'))).toHaveLength(1);
      a.call.cancel();
      await vi.waitFor(
        () => {
          const e = open();
          return new Promise<void>((resolve, reject) => {
            e.call.once('data', () => resolve());
            e.call.once('error', (err) => reject(err));
          });
        },
        { timeout: 10_000, interval: 100 },
      );
    } finally {
      for (const { call } of calls) call.cancel();
      client.close();
    }
  });
});
