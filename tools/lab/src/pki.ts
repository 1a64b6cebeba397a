import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const EC = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];

/** A CA made for one fake API server, and the serving certificate it signed (PEM). */
export interface ServingPki {
  /** The CA certificate clients trust (a kubeconfig's `certificate-authority-data`). */
  readonly ca: Buffer;
  readonly cert: Buffer;
  readonly key: Buffer;
}

/**
 * A fresh self-signed CA and a serving certificate for 127.0.0.1 and localhost, as a cluster's
 * own CA signs its API server's, made with the `openssl` CLI (EC P-256 keys, quick to make, valid
 * one day). The files live in a temporary folder only while they are made: nothing is kept on disk.
 */
export async function makeServingPki(): Promise<ServingPki> {
  const dir = await mkdtemp(join(tmpdir(), 'kpng-lab-pki-'));
  try {
    const file = (name: string) => join(dir, name);
    await run('openssl', [
      'req',
      '-x509',
      ...EC,
      '-keyout',
      file('ca.key'),
      '-out',
      file('ca.crt'),
      '-days',
      '1',
      '-subj',
      '/CN=kpng lab API server CA',
      '-addext',
      'basicConstraints=critical,CA:TRUE',
      '-addext',
      'keyUsage=critical,keyCertSign,cRLSign',
    ]);
    await run('openssl', [
      'req',
      ...EC,
      '-keyout',
      file('server.key'),
      '-out',
      file('server.csr'),
      '-subj',
      '/CN=kube-apiserver',
    ]);
    await writeFile(file('server.ext'), SERVER_EXTENSIONS);
    await run('openssl', [
      'x509',
      '-req',
      '-in',
      file('server.csr'),
      '-CA',
      file('ca.crt'),
      '-CAkey',
      file('ca.key'),
      '-CAcreateserial',
      '-out',
      file('server.crt'),
      '-days',
      '1',
      '-extfile',
      file('server.ext'),
    ]);
    return {
      ca: await readFile(file('ca.crt')),
      cert: await readFile(file('server.crt')),
      key: await readFile(file('server.key')),
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const SERVER_EXTENSIONS = [
  'subjectAltName=IP:127.0.0.1,DNS:localhost',
  'extendedKeyUsage=serverAuth',
  'keyUsage=critical,digitalSignature',
].join('\n');
