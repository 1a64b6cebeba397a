import { isIP } from 'node:net';
import { isLoopbackHost, parseListenAddress, type ListenAddress } from '../util/address.js';
import { ErrorCodes, KpngError, toError } from '../util/errors.js';

/** Where core serves the node-local stream unless told otherwise. */
export const DEFAULT_LOCAL_ADDRESS = 'unix:///run/kpng/kpng.sock';

/** A TCP address other than loopback: reachable from other hosts, so served only with mutual TLS. */
export function needsTls(address: ListenAddress): boolean {
  return address.kind === 'tcp' && !isLoopbackHost(address.host);
}

/**
 * Parses a serving address. A unix socket (mode 0600) or a loopback TCP address is served as is;
 * any other address only with `tls` (mutual TLS: the central core's global stream), since the
 * stream carries every Service and endpoint (KPNG's default of plaintext `tcp://:12090` on every
 * interface is one of the lessons in kpng-design.md section 19).
 */
export function parseServeAddress(address: string, tls: boolean): ListenAddress {
  let parsed: ListenAddress;
  try {
    parsed = parseListenAddress(address);
  } catch (e) {
    throw new KpngError(ErrorCodes.InvalidConfig, toError(e).message);
  }
  if (!tls && needsTls(parsed)) {
    throw new KpngError(
      ErrorCodes.InvalidConfig,
      `refusing to serve the state stream on non-loopback address ${JSON.stringify(address)} without TLS: ` +
        'use a unix socket or 127.0.0.1/[::1], or TLS with client certificates',
    );
  }
  if (tls && parsed.kind === 'unix') {
    throw new KpngError(ErrorCodes.InvalidConfig, `TLS needs a TCP address, not ${JSON.stringify(address)}`);
  }
  return parsed;
}

/** One DNS label (RFC 1123): letters, digits and inner hyphens, at most 63 characters. */
const LABEL = '[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?';
const HOSTNAME = new RegExp(`^(?=.{1,253}$)${LABEL}(?:\\.${LABEL})*\\.?$`);

/**
 * Parses an address a client dials (`--api`, `--connect`, `$KPNG_ADDRESS`): `unix:///path`,
 * `host:port` with a DNS name or IPv4 address, or `[ipv6]:port`. gRPC would accept almost any text
 * as a target and retry it forever; a malformed address is a configuration error, reported at once.
 */
export function parseDialAddress(address: string): ListenAddress {
  let parsed: ListenAddress;
  try {
    parsed = parseListenAddress(address);
  } catch (e) {
    throw new KpngError(ErrorCodes.InvalidConfig, toError(e).message);
  }
  if (parsed.kind === 'unix') return parsed;
  const bracketed = address.startsWith('[');
  const hostOk = bracketed ? isIP(parsed.host) === 6 : address.indexOf(':') > 0 && validHost(parsed.host);
  if (!hostOk) {
    throw new KpngError(
      ErrorCodes.InvalidConfig,
      `invalid address ${JSON.stringify(address)}: ${JSON.stringify(bracketed ? parsed.host : address.slice(0, address.lastIndexOf(':')))} is not an IP address or DNS name`,
    );
  }
  if (parsed.port === 0) {
    throw new KpngError(
      ErrorCodes.InvalidConfig,
      `invalid address ${JSON.stringify(address)}: port 0 cannot be dialled`,
    );
  }
  return parsed;
}

/** A dotted-decimal host must be a real IPv4 address (`999.1.1.1` is no DNS name either). */
function validHost(host: string): boolean {
  return /^[\d.]+$/.test(host) ? isIP(host) === 4 : HOSTNAME.test(host);
}
