import { needsTls } from '../stream/stream-address.js';
import { readStreamTls, type StreamTls, type StreamTlsFiles } from '../stream/tls.js';
import { ErrorCodes, KpngError } from '../util/errors.js';
import { formatListenAddress, type ListenAddress } from '../util/address.js';
import { UsageError } from './usage-error.js';

/** The flags of both ends of the global stream: the central core serving it, the node agent dialling it. */
export const STREAM_TLS_FLAGS = {
  'global-tls-cert': { type: 'string' },
  'global-tls-key': { type: 'string' },
  'global-tls-client-ca': { type: 'string' },
  'api-tls-ca': { type: 'string' },
  'api-tls-cert': { type: 'string' },
  'api-tls-key': { type: 'string' },
} as const;

type TlsFlag = keyof typeof STREAM_TLS_FLAGS;

/** One end: its address flag and the flag of each PEM file. */
interface TlsFlagSet {
  readonly address: 'global-listen' | 'api';
  readonly files: { readonly [K in keyof StreamTls]: TlsFlag };
}

export const GLOBAL_TLS: TlsFlagSet = {
  address: 'global-listen',
  files: { cert: 'global-tls-cert', key: 'global-tls-key', ca: 'global-tls-client-ca' },
};
export const API_TLS: TlsFlagSet = {
  address: 'api',
  files: { ca: 'api-tls-ca', cert: 'api-tls-cert', key: 'api-tls-key' },
};

/**
 * The TLS files of one end of the global stream, or none. The policy: all three flags or none; a
 * non-loopback TCP address needs them (the stream carries every Service and endpoint of the
 * cluster); TLS only over TCP. Any breach is a usage error naming the flags.
 */
export function streamTlsFlags(
  set: TlsFlagSet,
  address: ListenAddress | undefined,
  values: { readonly [K in TlsFlag]?: string | undefined },
): StreamTlsFiles | undefined {
  const names = (Object.keys(set.files) as (keyof StreamTls)[]).map((k) => set.files[k]);
  const given = names.filter((n) => values[n] !== undefined);
  const list = names.map((n) => `--${n}`).join(', ');
  if (given.length > 0 && !address) throw new UsageError(`--${given[0]} needs --${set.address}`);
  if (!address) return undefined;
  if (given.length === 0) {
    if (!needsTls(address)) return undefined;
    throw new UsageError(
      `--${set.address}: ${formatListenAddress(address)} is not loopback, so the global stream needs TLS with client ` +
        `certificates: ${list} (or use a unix socket or 127.0.0.1/[::1])`,
    );
  }
  if (given.length < names.length) {
    const missing = names.filter((n) => values[n] === undefined).map((n) => `--${n}`);
    throw new UsageError(`${list} go together: missing ${missing.join(', ')}`);
  }
  if (address.kind === 'unix')
    throw new UsageError(`${list}: TLS needs a TCP address, not --${set.address} unix://...`);
  const file = (k: keyof StreamTls) => ({ path: values[set.files[k]]!, name: `--${set.files[k]}` });
  return { ca: file('ca'), cert: file('cert'), key: file('key') };
}

/** Reads TLS files named by flags: an unreadable or mismatched file is a usage error naming its flag. */
export async function readFlagTls(files: StreamTlsFiles | undefined): Promise<StreamTls | undefined> {
  if (!files) return undefined;
  try {
    return await readStreamTls(files);
  } catch (e) {
    throw e instanceof KpngError && e.code === ErrorCodes.InvalidConfig ? new UsageError(e.message) : e;
  }
}
