import { afterEach, describe, expect, it, vi } from 'vitest';
import { Client, credentials } from '@grpc/grpc-js';
import type { GlobalSnapshot } from '../model/global-model.js';
import type { NodeLocalState } from '../nodeview/types.js';
import { RecordingLogger } from '../sync/recording-logger.js';
import { watchGlobalState } from './client/client.js';
import { decodeResponse, type DecodedResponse } from './codec/envelope.js';
import type { WatchInfo } from './client/consume.js';
import { serveGlobalState } from './server/global-server.js';
import { StateHub } from './hub.js';
import { serveLocalState } from './server/local-server.js';
import { WATCH_METHODS } from './service-definitions.js';
import { changed, everything, harness } from './testdata/harness.js';
import { aRichGlobalSnapshot } from './testing-fixtures.js';

const h = harness();
const logger = new RecordingLogger();
afterEach(() => h.cleanup());

describe('global stream over gRPC', () => {
  it('delivers complete global snapshots and resumes like the local stream', async () => {
    const hub = new StateHub<GlobalSnapshot>({ instanceId: 'central' });
    const server = h.server(await serveGlobalState({ logger, hub, address: '127.0.0.1:0' }));
    const snap = aRichGlobalSnapshot();
    hub.publish(snap, everything);
    const seen: [GlobalSnapshot, WatchInfo][] = [];
    h.watch((signal) => watchGlobalState(server.address, (s, info) => void seen.push([s, info]), { signal, logger }));
    await vi.waitFor(() => expect(seen).toHaveLength(1), { timeout: 10_000 });
    expect(seen[0]![0]).toEqual(snap);
    expect(seen[0]![1]).toMatchObject({ instanceId: 'central', revision: 1, full: true });

    const next: GlobalSnapshot = { ...snap, revision: 43, nodes: [snap.nodes[0]!] };
    hub.publish(next, { ...changed(), nodeChanged: true });
    await vi.waitFor(() => expect(seen).toHaveLength(2), { timeout: 10_000 });
    expect(seen[1]![0]).toEqual(next);
    expect(seen[1]![1]).toMatchObject({ revision: 2, full: false, changes: { nodeChanged: true } });
    expect(seen[1]![0].services[0]).toBe(seen[0]![0].services[0]);
  });
});

describe('heartbeats', () => {
  it('arrive periodically on an idle stream, carrying instance, revision and interval', async () => {
    const hub = new StateHub<NodeLocalState>({ instanceId: 'core-hb' });
    const server = h.server(
      await serveLocalState({ logger, hub, address: `unix://${await h.dir()}/s.sock`, heartbeatIntervalMs: 20 }),
    );
    // A raw client that never asks for a state: all it can receive is heartbeats.
    const client = new Client(server.address, credentials.createInsecure());
    const m = WATCH_METHODS.local;
    const call = client.makeBidiStreamRequest(m.path, m.requestSerialize, m.responseDeserialize);
    const received: DecodedResponse[] = [];
    call.on('data', (buf: Buffer) => received.push(decodeResponse(buf)));
    call.on('error', () => {});
    try {
      await vi.waitFor(() => expect(received.length).toBeGreaterThanOrEqual(3), { timeout: 10_000 });
      expect(received.slice(0, 3)).toEqual(
        Array(3).fill({ type: 'heartbeat', heartbeat: { instanceId: 'core-hb', revision: 0, intervalMs: 20 } }),
      );
    } finally {
      call.cancel();
      client.close();
    }
  });
});
