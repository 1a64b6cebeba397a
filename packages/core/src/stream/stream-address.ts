import { isLoopbackHost, parseListenAddress, type ListenAddress } from '../util/address.js';
import { ErrorCodes, KpngError, toError } from '../util/errors.js';

/** Where core serves the node-local stream unless told otherwise. */
export const DEFAULT_LOCAL_ADDRESS = 'unix:///run/kpng/kpng.sock';

/**
 * Parses a serving address. Only a unix socket or a loopback TCP address is accepted unless
 * `allowRemote` says otherwise: the stream is unauthenticated plaintext (KPNG's default of
 * `tcp://:12090` on every interface is one of the lessons in kpng-design.md section 19). The
 * central-core mode serves the global API to other nodes and must opt in explicitly.
 */
export function parseServeAddress(address: string, allowRemote: boolean): ListenAddress {
  let parsed: ListenAddress;
  try {
    parsed = parseListenAddress(address);
  } catch (e) {
    throw new KpngError(ErrorCodes.InvalidConfig, toError(e).message);
  }
  if (parsed.kind === 'tcp' && !allowRemote && !isLoopbackHost(parsed.host)) {
    throw new KpngError(
      ErrorCodes.InvalidConfig,
      `refusing to serve the state stream on non-loopback address ${JSON.stringify(address)}: ` +
        'use a unix socket or 127.0.0.1/[::1], or allow remote clients explicitly',
    );
  }
  return parsed;
}
