/** Test certificates, made at test time by the lab's CA maker (`openssl`, never committed): two CAs and their leaves. */
import { makeCa, makeLeaf, type PemIdentity } from '@kpng/lab';
import type { StreamTls } from '../tls.js';

/** PEM files on disk (for flags) and their contents (for the library). */
export type TestIdentity = PemIdentity;

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
  const ca = await makeCa(dir, 'ca', '/CN=kpng test ca');
  const otherCa = await makeCa(dir, 'other-ca', '/CN=kpng test other-ca');
  const client = (name: string, more: { subject?: string; subjectAltName?: string } = {}) =>
    makeLeaf(dir, name, ca, { usage: 'clientAuth', subject: `/CN=kpng test ${name}`, ...more });
  return {
    caPath: ca.certPath,
    ca: ca.cert,
    server: await makeLeaf(dir, 'server', ca, {
      usage: 'serverAuth',
      subject: '/CN=kpng test server',
      subjectAltName: 'IP:127.0.0.1,DNS:localhost',
    }),
    client: await client('client', { subjectAltName: 'DNS:node-a' }),
    kubeletClient: await client('kubelet', { subject: '/O=system:nodes/CN=system:node:node-b' }),
    anonymousClient: await client('anonymous'),
    otherCaPath: otherCa.certPath,
    otherCa: otherCa.cert,
    strangerClient: await makeLeaf(dir, 'stranger', otherCa, { usage: 'clientAuth', subject: '/CN=kpng test stranger' }),
    tls: (trusts, identity) => ({ ca: trusts, cert: identity.cert, key: identity.key }),
  };
}
