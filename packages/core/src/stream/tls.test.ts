import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorCodes } from '../util/errors.js';
import { harness } from './testdata/harness.js';
import { makeTestPki, type TestPki } from './testdata/pki.js';
import { readStreamTls, type StreamTlsFiles } from './tls.js';

const h = harness();
let pki: TestPki;
let dir: string;
beforeAll(async () => {
  dir = await h.dir();
  pki = await makeTestPki(dir);
  await writeFile(join(dir, 'garbage.pem'), 'not a certificate\n');
});
afterAll(() => h.cleanup());

/** The client's files under their flag names, with `change` applied to the paths. */
function files(change: Partial<Record<'ca' | 'cert' | 'key', string>> = {}): StreamTlsFiles {
  return {
    ca: { path: change.ca ?? pki.caPath, name: '--api-tls-ca' },
    cert: { path: change.cert ?? pki.client.certPath, name: '--api-tls-cert' },
    key: { path: change.key ?? pki.client.keyPath, name: '--api-tls-key' },
  };
}

describe('readStreamTls', () => {
  it('reads a CA, a certificate and its key', async () => {
    expect(await readStreamTls(files())).toEqual({ ca: pki.ca, cert: pki.client.cert, key: pki.client.key });
  });

  it.each<[string, (d: string, p: TestPki) => Partial<Record<'ca' | 'cert' | 'key', string>>, RegExp]>([
    ['a missing CA', (d) => ({ ca: join(d, 'missing.crt') }), /^--api-tls-ca \S+missing\.crt: ENOENT/],
    [
      'a CA that is not PEM',
      (d) => ({ ca: join(d, 'garbage.pem') }),
      /^--api-tls-ca \S+garbage\.pem: not a PEM certificate/,
    ],
    [
      'a key given as the certificate',
      (_, p) => ({ cert: p.client.keyPath }),
      /^--api-tls-cert \S+client\.key: not a PEM certificate/,
    ],
    [
      'a certificate given as the key',
      (_, p) => ({ key: p.client.certPath }),
      /^--api-tls-key \S+client\.crt: not a PEM private key/,
    ],
    [
      'the key of another certificate',
      (_, p) => ({ key: p.strangerClient.keyPath }),
      /^--api-tls-key \S+stranger\.key is not the private key of --api-tls-cert \S+client\.crt$/,
    ],
  ])('refuses %s, naming the flag and the file', async (_, change, message) => {
    await expect(readStreamTls(files(change(dir, pki)))).rejects.toMatchObject({
      code: ErrorCodes.InvalidConfig,
      message: expect.stringMatching(message),
    });
  });
});
