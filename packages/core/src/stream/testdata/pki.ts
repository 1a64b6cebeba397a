/** Test certificates, made at test time with the `openssl` CLI (never committed): two CAs and their leaves. */
import { execFile } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { StreamTls } from '../tls.js';

const run = promisify(execFile);
const EC = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];

/** PEM files on disk (for flags) and their contents (for the library). */
export interface TestIdentity {
  readonly certPath: string;
  readonly keyPath: string;
  readonly cert: Buffer;
  readonly key: Buffer;
}

export interface TestPki {
  readonly caPath: string;
  readonly ca: Buffer;
  /** Signed by `ca`, for 127.0.0.1 and localhost. */
  readonly server: TestIdentity;
  /** Signed by `ca`, the node agent of `node-a` (subjectAltName `DNS:node-a`). */
  readonly client: TestIdentity;
  /** Signed by `ca`, a kubelet's kind of client certificate: subject `CN=system:node:node-b, O=system:nodes`, no SAN. */
  readonly kubeletClient: TestIdentity;
  /** Signed by `ca`, a client certificate that names no node (`CN=kpng test anonymous`, no SAN). */
  readonly anonymousClient: TestIdentity;
  /** Another CA, and a client certificate it signed: a stranger to `ca`. */
  readonly otherCaPath: string;
  readonly otherCa: Buffer;
  readonly strangerClient: TestIdentity;
  /** `StreamTls` of one side: the CA it trusts, and its identity. */
  tls(trusts: Buffer, identity: TestIdentity): StreamTls;
}

/** Makes the certificates in `dir` (EC keys: quick to make). */
export async function makeTestPki(dir: string): Promise<TestPki> {
  const ca = await makeCa(dir, 'ca');
  const otherCa = await makeCa(dir, 'other-ca');
  return {
    caPath: ca,
    ca: await readFile(ca),
    server: await makeLeaf(dir, 'server', ca, 'serverAuth', 'subjectAltName=IP:127.0.0.1,DNS:localhost'),
    client: await makeLeaf(dir, 'client', ca, 'clientAuth', 'subjectAltName=DNS:node-a'),
    kubeletClient: await makeLeaf(dir, 'kubelet', ca, 'clientAuth', {
      subject: '/O=system:nodes/CN=system:node:node-b',
    }),
    anonymousClient: await makeLeaf(dir, 'anonymous', ca, 'clientAuth'),
    otherCaPath: otherCa,
    otherCa: await readFile(otherCa),
    strangerClient: await makeLeaf(dir, 'stranger', otherCa, 'clientAuth'),
    tls: (trusts, identity) => ({ ca: trusts, cert: identity.cert, key: identity.key }),
  };
}

async function makeCa(dir: string, name: string): Promise<string> {
  const cert = join(dir, `${name}.crt`);
  await run(
    'openssl',
    ['req', '-x509', ...EC, '-keyout', join(dir, `${name}.key`), '-out', cert, '-days', '1'].concat([
      '-subj',
      `/CN=kpng test ${name}`,
    ]),
  );
  return cert;
}

async function makeLeaf(
  dir: string,
  name: string,
  caCert: string,
  usage: string,
  ...more: (string | { subject: string })[]
): Promise<TestIdentity> {
  const ext = more.filter((m): m is string => typeof m === 'string');
  const subject = more.find((m): m is { subject: string } => typeof m !== 'string')?.subject ?? `/CN=kpng test ${name}`;
  const keyPath = join(dir, `${name}.key`);
  const certPath = join(dir, `${name}.crt`);
  const csr = join(dir, `${name}.csr`);
  const extFile = join(dir, `${name}.ext`);
  await writeFile(extFile, [`extendedKeyUsage=${usage}`, ...ext].join('\n') + '\n');
  await run('openssl', ['req', ...EC, '-keyout', keyPath, '-out', csr, '-subj', subject]);
  const caKey = caCert.replace(/\.crt$/, '.key');
  await run('openssl', [
    'x509',
    '-req',
    '-in',
    csr,
    '-CA',
    caCert,
    '-CAkey',
    caKey,
    '-set_serial',
    String(Date.now()),
    '-days',
    '1',
    '-out',
    certPath,
    '-extfile',
    extFile,
  ]);
  return { certPath, keyPath, cert: await readFile(certPath), key: await readFile(keyPath) };
}
