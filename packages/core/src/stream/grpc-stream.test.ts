import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { NodeLocalState } from '../nodeview/types.js';
import { watchLocalState } from './client/client.js';
import type { WatchInfo } from './client/consume.js';
import { StateHub } from './hub.js';
import { RecordingLogger } from '../sync/recording-logger.js';
import { serveLocalState } from './server/local-server.js';
import type { StreamObserver } from './server/server-session.js';
import { changed, everything, gate, harness } from './testdata/harness.js';
import { syntheticLocalState, withOneServiceChanged } from './testing-fixtures.js';

const shape = { services: 5, endpointsPerService: 2 };
const quickBackoff = { initialMs: 10, maxMs: 50 };
const h = harness();
const logger = new RecordingLogger();
afterEach(() => h.cleanup());

interface Seen {
  readonly revision: number;
  readonly info: WatchInfo;
  readonly state: NodeLocalState;
}

/** Publishes `count` states, each changing one more Service; returns the keys changed per revision. */
function publishSeries(
  hub: StateHub<NodeLocalState>,
  base: NodeLocalState,
  from: number,
  count: number,
): NodeLocalState {
  let state = base;
  for (let i = 0; i < count; i++) {
    const index = (from + i) % shape.services;
    state = withOneServiceChanged(state, index, shape, from + i);
    hub.publish(state, changed(state.services[index]!.key));
  }
  return state;
}

async function socketAddress(): Promise<string> {
  return `unix://${join(await h.dir(), 'run', 'kpng.sock')}`;
}

describe('node-local stream over gRPC', () => {
  it('serves a fast and a slow client: the slow one skips to the latest revision with the union of changes', async () => {
    const hub = new StateHub<NodeLocalState>({ instanceId: 'core-1' });
    const server = h.server(await serveLocalState({ logger, hub, address: await socketAddress() }));
    const first = syntheticLocalState(shape);
    hub.publish(first, everything);

    const fast: Seen[] = [];
    const slow: Seen[] = [];
    const release = gate();
    h.watch((signal) =>
      watchLocalState(server.address, (state, info) => void fast.push({ revision: info.revision, info, state }), {
        signal,
        logger,
      }),
    );
    h.watch((signal) =>
      watchLocalState(
        server.address,
        async (state, info) => {
          slow.push({ revision: info.revision, info, state });
          if (slow.length === 1) await release.promise;
        },
        { signal, logger },
      ),
    );
    await vi.waitFor(() => expect([fast.length, slow.length]).toEqual([1, 1]), { timeout: 10_000 });

    let latest = first;
    for (let rev = 2; rev <= 4; rev++) {
      latest = publishSeries(hub, latest, rev, 1);
      await vi.waitFor(() => expect(fast.at(-1)?.revision).toBe(rev), { timeout: 10_000 });
    }
    release.open();
    await vi.waitFor(() => expect(slow).toHaveLength(2), { timeout: 10_000 });

    expect(fast.map((s) => s.revision)).toEqual([1, 2, 3, 4]);
    expect(fast.map((s) => s.info.full)).toEqual([true, false, false, false]);
    expect(slow.map((s) => s.revision)).toEqual([1, 4]);
    expect(slow[1]!.info.full).toBe(false);
    expect([...slow[1]!.info.changes.updatedServices!].sort()).toEqual(
      [2, 3, 4].map((i) => latest.services[i % shape.services]!.key).sort(),
    );
    expect(slow[1]!.state).toEqual(latest);
    expect(fast[3]!.state).toEqual(latest);
  });

  it('after a server restart the client gets the new instance as a full state', async () => {
    const address = await socketAddress();
    const hub1 = new StateHub<NodeLocalState>({ instanceId: 'core-1' });
    const server1 = await serveLocalState({ logger, hub: hub1, address });
    hub1.publish(syntheticLocalState(shape), everything);
    const seen: WatchInfo[] = [];
    h.watch((signal) =>
      watchLocalState(address, (_s, info) => void seen.push(info), { signal, logger, backoff: quickBackoff }),
    );
    await vi.waitFor(() => expect(seen).toHaveLength(1), { timeout: 10_000 });
    await server1.close();

    const hub2 = new StateHub<NodeLocalState>({ instanceId: 'core-2' });
    h.server(await serveLocalState({ logger, hub: hub2, address }));
    hub2.publish(syntheticLocalState(shape), changed('ns-1/svc-1')); // the server's own changes do not matter to a new client
    await vi.waitFor(() => expect(seen).toHaveLength(2), { timeout: 10_000 });
    expect(seen[1]).toMatchObject({ instanceId: 'core-2', revision: 1, full: true });
    expect(seen[1]!.changes.updatedServices).toBeUndefined();
  });

  it('a client reconnecting to the same instance resumes with the union of the changes it missed', async () => {
    const address = await socketAddress();
    const hub = new StateHub<NodeLocalState>({ instanceId: 'core-1' });
    const base = syntheticLocalState(shape);
    hub.publish(base, everything);
    const server1 = await serveLocalState({ logger, hub, address });
    const seen: Seen[] = [];
    h.watch((signal) =>
      watchLocalState(address, (state, info) => void seen.push({ revision: info.revision, info, state }), {
        signal,
        logger,
        backoff: quickBackoff,
      }),
    );
    await vi.waitFor(() => expect(seen).toHaveLength(1), { timeout: 10_000 });

    await server1.close(); // the connection drops, the hub (the core) lives on
    const latest = publishSeries(hub, base, 1, 2);
    h.server(await serveLocalState({ logger, hub, address }));
    await vi.waitFor(() => expect(seen).toHaveLength(2), { timeout: 10_000 });

    expect(seen[1]).toMatchObject({ revision: 3, info: { instanceId: 'core-1', full: false } });
    expect([...seen[1]!.info.changes.updatedServices!].sort()).toEqual(
      [latest.services[1]!.key, latest.services[2]!.key].sort(),
    );
    expect(seen[1]!.state).toEqual(latest);
    // Unchanged Services decode to the very same objects across the reconnect.
    expect(seen[1]!.state.services[0]).toBe(seen[0]!.state.services[0]);
  });

  it('creates the socket 0600 in a new parent directory and removes it on close', async () => {
    const address = await socketAddress();
    const path = address.slice('unix://'.length);
    const server = await serveLocalState({ logger, hub: new StateHub<NodeLocalState>(), address });
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    expect((await stat(path)).isSocket()).toBe(true);
    await server.close();
    await expect(stat(path)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('serves over TCP on 127.0.0.1 and reports the chosen port', async () => {
    const hub = new StateHub<NodeLocalState>();
    const server = h.server(await serveLocalState({ logger, hub, address: '127.0.0.1:0' }));
    expect(server.address).toMatch(/^127\.0\.0\.1:[1-9]\d*$/);
    const state = syntheticLocalState(shape);
    hub.publish(state, everything);
    const seen: NodeLocalState[] = [];
    h.watch((signal) => watchLocalState(server.address, (s) => void seen.push(s), { signal, logger }));
    await vi.waitFor(() => expect(seen).toHaveLength(1), { timeout: 10_000 });
    expect(seen[0]).toEqual(state);
  });

  it('refuses a non-loopback TCP address', async () => {
    await expect(
      serveLocalState({ logger, hub: new StateHub<NodeLocalState>(), address: '0.0.0.0:0' }),
    ).rejects.toMatchObject({
      code: 'INVALID_CONFIG',
      message: expect.stringMatching(/non-loopback/),
    });
  });

  it.each(['kpng.sock', 'unix://run/kpng.sock', 'core:0', 'http://127.0.0.1:12090'])(
    'a client given the malformed address %j fails at once instead of retrying',
    async (address) => {
      await expect(watchLocalState(address, () => {}, { logger })).rejects.toMatchObject({
        code: 'INVALID_CONFIG',
        message: expect.stringContaining(JSON.stringify(address)),
      });
    },
  );

  it('reports clients and sent states to the observer', async () => {
    const events: string[] = [];
    const observer: StreamObserver = {
      clientConnected: (api) => events.push(`connected:${api}`),
      clientDisconnected: (api) => events.push(`disconnected:${api}`),
      stateSent: (api, info) => events.push(`sent:${api}:${info.revision}:${info.full}:${info.bytes > 0}`),
    };
    const hub = new StateHub<NodeLocalState>();
    const server = h.server(await serveLocalState({ logger, hub, address: await socketAddress(), observer }));
    hub.publish(syntheticLocalState(shape), everything);
    let handled = 0;
    const watch = h.watch((signal) => watchLocalState(server.address, () => void handled++, { signal, logger }));
    await vi.waitFor(() => expect(handled).toBe(1), { timeout: 10_000 });
    watch.abort();
    await vi.waitFor(() => expect(events).toContain('disconnected:local'), { timeout: 10_000 });
    expect(events).toEqual(['connected:local', 'sent:local:1:true:true', 'disconnected:local']);
  });

  it('reconnects when the server stays silent longer than the idle timeout', async () => {
    let connects = 0;
    const observer: StreamObserver = {
      clientConnected: () => connects++,
      clientDisconnected: () => {},
      stateSent: () => {},
    };
    const hub = new StateHub<NodeLocalState>();
    // One heartbeat when the stream opens, then silence for an hour.
    const server = h.server(
      await serveLocalState({ logger, hub, address: await socketAddress(), observer, heartbeatIntervalMs: 3_600_000 }),
    );
    const clientLog = new RecordingLogger();
    h.watch((signal) =>
      watchLocalState(server.address, () => {}, {
        signal,
        logger: clientLog,
        idleTimeoutMs: 50,
        backoff: quickBackoff,
      }),
    );
    await vi.waitFor(() => expect(connects).toBeGreaterThanOrEqual(3), { timeout: 10_000 });
    expect(clientLog.records.map((r) => r.fields['err'])).toContainEqual(
      expect.objectContaining({ message: 'no byte from the server for 50 ms' }),
    );
  });
});

describe('server shutdown paths', () => {
  it('ends client streams cleanly when the hub closes, and the client keeps trying', async () => {
    let connects = 0;
    const observer: StreamObserver = {
      clientConnected: () => connects++,
      clientDisconnected: () => {},
      stateSent: () => {},
    };
    const hub = new StateHub<NodeLocalState>();
    const server = h.server(await serveLocalState({ logger, hub, address: await socketAddress(), observer }));
    const clientLog = new RecordingLogger();
    h.watch((signal) =>
      watchLocalState(server.address, () => {}, { signal, logger: clientLog, backoff: quickBackoff }),
    );
    await vi.waitFor(() => expect(hub.waiting).toBe(1), { timeout: 10_000 });
    hub.close();
    await vi.waitFor(() => expect(connects).toBeGreaterThanOrEqual(2), { timeout: 10_000 });
    expect(clientLog.records.map((r) => r.fields['err'])).toContainEqual(
      expect.objectContaining({ code: 'STREAM_CLOSED', message: 'the server ended the state stream' }),
    );
    expect(logger.records.filter((r) => r.level === 'warn' && r.msg === 'state stream session failed')).toEqual([]);
  });
});
