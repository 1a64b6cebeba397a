// Certificates made at test time with the `openssl` CLI (EC P-256 keys, valid one day, never
// committed): the one CA maker of the repository, for the fake API server's HTTPS and for core's
// stream TLS tests.
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runChecked } from './netns/run.js';

const EC = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];

/** A certificate and its key: the PEM files in the folder they were made in, and their contents. */
export interface PemIdentity {
  readonly certPath: string;
  readonly keyPath: string;
  readonly cert: Buffer;
  readonly key: Buffer;
}

/** A self-signed CA, `NAME.crt` and `NAME.key` in `dir` (subject `/CN=NAME` unless given). */
export async function makeCa(dir: string, name: string, subject = `/CN=${name}`): Promise<PemIdentity> {
  const keyPath = join(dir, `${name}.key`);
  const certPath = join(dir, `${name}.crt`);
  await openssl(
    ['req', '-x509', ...EC, '-keyout', keyPath, '-out', certPath, '-days', '1', '-subj', subject].concat([
      '-addext',
      'basicConstraints=critical,CA:TRUE',
      '-addext',
      'keyUsage=critical,keyCertSign,cRLSign',
    ]),
  );
  return identity(certPath, keyPath);
}

export interface LeafOptions {
  readonly usage: 'serverAuth' | 'clientAuth';
  /** Defaults to `/CN=NAME`. */
  readonly subject?: string;
  /** e.g. `IP:127.0.0.1,DNS:localhost`; none by default. */
  readonly subjectAltName?: string;
}

/** A certificate `ca` signed, `NAME.crt` and `NAME.key` in `dir` (a random serial). */
export async function makeLeaf(dir: string, name: string, ca: PemIdentity, options: LeafOptions): Promise<PemIdentity> {
  const keyPath = join(dir, `${name}.key`);
  const certPath = join(dir, `${name}.crt`);
  const csr = join(dir, `${name}.csr`);
  const extFile = join(dir, `${name}.ext`);
  const extensions = [
    `extendedKeyUsage=${options.usage}`,
    'keyUsage=critical,digitalSignature',
    ...(options.subjectAltName === undefined ? [] : [`subjectAltName=${options.subjectAltName}`]),
  ];
  await writeFile(extFile, `${extensions.join('\n')}\n`);
  await openssl(['req', ...EC, '-keyout', keyPath, '-out', csr, '-subj', options.subject ?? `/CN=${name}`]);
  await openssl(
    ['x509', '-req', '-in', csr, '-CA', ca.certPath, '-CAkey', ca.keyPath].concat([
      '-set_serial',
      `0x${randomBytes(8).toString('hex')}`,
      '-days',
      '1',
      '-out',
      certPath,
      '-extfile',
      extFile,
    ]),
  );
  return identity(certPath, keyPath);
}

/** A CA made for one fake API server, and the serving certificate it signed (PEM). */
export interface ServingPki {
  /** The CA certificate clients trust (a kubeconfig's `certificate-authority-data`). */
  readonly ca: Buffer;
  readonly cert: Buffer;
  readonly key: Buffer;
}

/**
 * A fresh CA and a serving certificate for 127.0.0.1 and localhost, as a cluster's own CA signs
 * its API server's. The files live in a temporary folder only while they are made.
 */
export async function makeServingPki(): Promise<ServingPki> {
  const dir = await mkdtemp(join(tmpdir(), 'kpng-lab-pki-'));
  try {
    const ca = await makeCa(dir, 'ca', '/CN=kpng lab API server CA');
    const server = await makeLeaf(dir, 'server', ca, {
      usage: 'serverAuth',
      subject: '/CN=kube-apiserver',
      subjectAltName: 'IP:127.0.0.1,DNS:localhost',
    });
    return { ca: ca.cert, cert: server.cert, key: server.key };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function openssl(args: readonly string[]): Promise<void> {
  await runChecked(['openssl', ...args]);
}

async function identity(certPath: string, keyPath: string): Promise<PemIdentity> {
  return { certPath, keyPath, cert: await readFile(certPath), key: await readFile(keyPath) };
}
