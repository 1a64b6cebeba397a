import { createPrivateKey, X509Certificate, type KeyObject } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { ErrorCodes, KpngError, toError } from '../util/errors.js';

/**
 * Mutual TLS for a stream, as PEM: `ca` verifies the peer (the server checks client certificates
 * with it, a client the server's), `cert` and `key` are this side's own identity.
 */
export interface StreamTls {
  readonly ca: Buffer;
  readonly cert: Buffer;
  readonly key: Buffer;
}

/** Where each PEM file of a `StreamTls` is, and the name to report it by (a flag, for programs). */
export type StreamTlsFiles = { readonly [K in keyof StreamTls]: { readonly path: string; readonly name: string } };

/**
 * Reads and checks the three files at start-up, so that a missing file, a PEM that is not a
 * certificate or a key, or a key that does not belong to the certificate is one clear error
 * naming the file, not a handshake failure on every connection later.
 */
export async function readStreamTls(files: StreamTlsFiles): Promise<StreamTls> {
  const read = async (which: keyof StreamTls) => {
    const { path, name } = files[which];
    try {
      return await readFile(path);
    } catch (e) {
      throw new KpngError(ErrorCodes.InvalidConfig, `${name} ${path}: ${toError(e).message}`, { cause: e });
    }
  };
  const tls = { ca: await read('ca'), cert: await read('cert'), key: await read('key') };
  const parse = <T>(which: keyof StreamTls, what: string, fn: (pem: Buffer) => T): T => {
    try {
      return fn(tls[which]);
    } catch (e) {
      const { path, name } = files[which];
      throw new KpngError(ErrorCodes.InvalidConfig, `${name} ${path}: not a PEM ${what} (${toError(e).message})`, {
        cause: e,
      });
    }
  };
  parse('ca', 'certificate', (pem) => new X509Certificate(pem));
  const cert = parse('cert', 'certificate', (pem) => new X509Certificate(pem));
  const key: KeyObject = parse('key', 'private key', (pem) => createPrivateKey(pem));
  if (!cert.checkPrivateKey(key)) {
    throw new KpngError(
      ErrorCodes.InvalidConfig,
      `${files.key.name} ${files.key.path} is not the private key of ${files.cert.name} ${files.cert.path}`,
    );
  }
  return tls;
}
