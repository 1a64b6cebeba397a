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
async function tlsServer(): Promise<{ address: string; snapshot: GlobalSnapshot; sessions: () => number }> {
  const hub = new StateHub<GlobalSnapshot>({ instanceId: 'central' });
  const snapshot = aRichGlobalSnapshot();
  hub.publish(snapshot, everything);
  let sessions = 0;
  const observer: StreamObserver = {
    clientConnected: () => void sessions++,
    clientDisconnected: () => {},
    stateSent: () => {},
  };
  const tls = pki.tls(pki.ca, pki.server);
  const server = h.server(await serveGlobalState({ logger, hub, address: '127.0.0.1:0', tls, observer }));
  return { address: server.address, snapshot, sessions: () => sessions };
}

/**
 * One raw Watch call (a raw client can also omit its certificate, which `StreamTls` never does):
 * the first state, or the error that ended the call.
 */
async function firstState(address: string, creds: ChannelCredentials): Promise<GlobalSnapshot | Error> {
  const client = new Client(address, creds);
  const m = WATCH_METHODS.global;
  const call = client.makeBidiStreamRequest(m.path, m.requestSerialize, m.responseDeserialize);
  try {
    return await new Promise<GlobalSnapshot | Error>((resolve) => {
      call.on('data', (buf: Buffer) => {
        const res = decodeResponse(buf);
        if (res.type === 'state') resolve(decodeGlobalState(buf, res.start, res.end).state);
      });
      call.on('error', resolve);
      call.write(encodeWatchRequest(undefined));
    });
  } finally {
    call.cancel();
    client.close();
  }
}

describe('global stream with mutual TLS', () => {
  it('serves a client with a certificate signed by its CA', async () => {
    const server = await tlsServer();
    expect(await firstState(server.address, channelCredentials(pki.tls(pki.ca, pki.client)))).toEqual(server.snapshot);

    const seen: GlobalSnapshot[] = [];
    const tls = pki.tls(pki.ca, pki.client);
    h.watch((signal) => watchGlobalState(server.address, (s) => void seen.push(s), { signal, logger, tls }));
    await vi.waitFor(() => expect(seen).toHaveLength(1), { timeout: 10_000 });
    expect(seen[0]).toEqual(server.snapshot);
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
