import { Client, credentials, status, type ChannelCredentials } from '@grpc/grpc-js';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { GlobalSnapshot } from '../model/global-model.js';
import { RecordingLogger } from '../sync/recording-logger.js';
import { encodeWatchRequest, decodeResponse } from './codec/envelope.js';
import { WATCH_METHODS } from './service-definitions.js';
import { watchGlobalState } from './client/client.js';
import { decodeGlobalState } from './codec/global-decode.js';
import { StateHub } from './hub.js';
import { serveGlobalState } from './server/global-server.js';
import type { StreamObserver } from './server/server-session.js';
import { everything, harness } from './testdata/harness.js';
import { makeTestPki, type TestPki } from './testdata/pki.js';
import { aRichGlobalSnapshot } from './testing-fixtures.js';
import { channelCredentials } from './credentials.js';

const h = harness();
const pkiDir = harness();
const logger = new RecordingLogger();
let pki: TestPki;
beforeAll(async () => void (pki = await makeTestPki(await pkiDir.dir())));
afterEach(() => h.cleanup());
afterAll(() => pkiDir.cleanup());

/** A global stream on loopback, served with mutual TLS (the flag-forced TLS of a central core), and its session count. */
async function tlsServer(): Promise<{
  address: string;
  snapshot: GlobalSnapshot;
  sessions: () => number;
  refused: () => string[];
}> {
  const hub = new StateHub<GlobalSnapshot>({ instanceId: 'central' });
  const snapshot = aRichGlobalSnapshot();
  hub.publish(snapshot, everything);
  let sessions = 0;
  const refused: string[] = [];
  const observer: StreamObserver = {
    clientConnected: () => void sessions++,
    clientDisconnected: () => {},
    stateSent: () => {},
    streamRefused: (_, reason) => void refused.push(reason),
  };
  const tls = pki.tls(pki.ca, pki.server);
  const server = h.server(await serveGlobalState({ logger, hub, address: '127.0.0.1:0', tls, observer }));
  return { address: server.address, snapshot, sessions: () => sessions, refused: () => refused };
}

/**
 * One raw Watch call (a raw client can also omit its certificate, which `StreamTls` never does):
 * the first state, or the error that ended the call. Each request names `nodes[i]`: one request
 * per entry, the next sent once the previous one's state arrived.
 */
async function firstState(
  address: string,
  creds: ChannelCredentials,
  ...nodes: string[]
): Promise<GlobalSnapshot | Error> {
  if (nodes.length === 0) nodes = ['node-a'];
  const client = new Client(address, creds);
  const m = WATCH_METHODS.global;
  const call = client.makeBidiStreamRequest(m.path, m.requestSerialize, m.responseDeserialize);
  try {
    return await new Promise<GlobalSnapshot | Error>((resolve) => {
      let asked = 0;
      call.on('data', (buf: Buffer) => {
        const res = decodeResponse(buf);
        if (res.type !== 'state') return;
        const delivery = decodeGlobalState(buf, res.start, res.end);
        if (asked === nodes.length) resolve(delivery.state);
        else call.write(encodeWatchRequest({ instanceId: 'central', revision: delivery.revision }, nodes[asked++]));
      });
      call.on('error', resolve);
      call.write(encodeWatchRequest(undefined, nodes[asked++]));
    });
  } finally {
    call.cancel();
    client.close();
  }
}

describe('global stream with mutual TLS', () => {
  it('serves a node agent whose certificate, signed by its CA, names the node it asks for', async () => {
    const server = await tlsServer();
    expect(await firstState(server.address, channelCredentials(pki.tls(pki.ca, pki.client)))).toEqual(server.snapshot);

    const seen: GlobalSnapshot[] = [];
    const tls = pki.tls(pki.ca, pki.client);
    h.watch((signal) =>
      watchGlobalState(server.address, (s) => void seen.push(s), { signal, logger, tls, nodeName: 'node-a' }),
    );
    await vi.waitFor(() => expect(seen).toHaveLength(1), { timeout: 10_000 });
    expect(seen[0]).toEqual(server.snapshot);
    expect(server.refused()).toEqual([]);
  });

  it('reads the client certificate again at each reconnection (a rotated certificate needs no restart)', async () => {
    const server = await tlsServer();
    const seen: GlobalSnapshot[] = [];
    let reloads = 0;
    // Starts with a certificate the server refuses; the files now hold node-a's.
    const tls = pki.tls(pki.ca, pki.anonymousClient);
    const reloadTls = () => Promise.resolve(pki.tls(pki.ca, (reloads++, pki.client)));
    const backoff = { initialMs: 10, maxMs: 10 };
    h.watch((signal) =>
      watchGlobalState(server.address, (s) => void seen.push(s), {
        signal,
        logger,
        tls,
        reloadTls,
        backoff,
        nodeName: 'node-a',
      }),
    );
    await vi.waitFor(() => expect(seen).toHaveLength(1), { timeout: 10_000 });
    expect(server.refused()).toEqual(['node_identity']);
    expect(reloads).toBe(1);
  });

  it("serves a kubelet's client certificate (CN system:node:NAME, no SAN) for its node", async () => {
    const server = await tlsServer();
    const creds = channelCredentials(pki.tls(pki.ca, pki.kubeletClient));
    expect(await firstState(server.address, creds, 'node-b')).toEqual(server.snapshot);
    expect(server.refused()).toEqual([]);
  });

  // Past the handshake: the session opens, the first request that names another node (or none) ends it.
  it.each<[string, (p: TestPki) => ChannelCredentials, string[], RegExp]>([
    [
      'a node agent asking for another node',
      (p) => channelCredentials(p.tls(p.ca, p.client)),
      ['node-b'],
      /names a node/,
    ],
    [
      'a kubelet certificate asking for another node',
      (p) => channelCredentials(p.tls(p.ca, p.kubeletClient)),
      ['node-a'],
      /names a node/,
    ],
    [
      'a request that names no node (a client older than node_name)',
      (p) => channelCredentials(p.tls(p.ca, p.client)),
      [''],
      /request names no node/,
    ],
    [
      'a certificate that names no node',
      (p) => channelCredentials(p.tls(p.ca, p.anonymousClient)),
      ['node-a'],
      /certificate names no node/,
    ],
    [
      'a served agent switching to another node',
      (p) => channelCredentials(p.tls(p.ca, p.client)),
      ['node-a', 'node-b'],
      /names a node/,
    ],
  ])('refuses %s (PERMISSION_DENIED, counted)', async (_, clientCredentials, nodes, details) => {
    const server = await tlsServer();
    const result = await firstState(server.address, clientCredentials(pki), ...nodes);
    expect(result).toBeInstanceOf(Error);
    expect(result).toMatchObject({ code: status.PERMISSION_DENIED, details: expect.stringMatching(details) });
    expect(server.refused()).toEqual(['node_identity']);
  });

  // Each refusal ends the call in the handshake (UNAVAILABLE), and the server never opened a session for it.
  it.each<[string, (p: TestPki) => ChannelCredentials]>([
    ['a plaintext client', () => credentials.createInsecure()],
    ['a client without a certificate', (p) => credentials.createSsl(p.ca)],
    ['a client whose certificate another CA signed', (p) => channelCredentials(p.tls(p.ca, p.strangerClient))],
    ['a client that does not trust the server', (p) => channelCredentials(p.tls(p.otherCa, p.client))],
  ])('refuses %s', async (_, clientCredentials) => {
    const server = await tlsServer();
    const result = await firstState(server.address, clientCredentials(pki));
    expect(result).toBeInstanceOf(Error);
    expect(result).toMatchObject({ code: status.UNAVAILABLE });
    expect(server.sessions()).toBe(0);
  });
});
