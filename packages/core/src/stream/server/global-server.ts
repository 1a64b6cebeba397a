import type { GlobalSnapshot } from '../../model/global-model.js';
import { encodeGlobalStateResponse, prepareGlobalState } from '../codec/global-encode.js';
import { serveStateStream, type ServeOptions, type StreamServer } from './stream-server.js';

/**
 * Serves `kpng.global.v1.GlobalState`: the whole global model, for node agents in the central-core
 * mode. Serving to other nodes (any address but a unix socket or loopback) needs `tls`: only
 * clients with a certificate signed by its CA are served.
 */
export function serveGlobalState(options: ServeOptions<GlobalSnapshot>): Promise<StreamServer> {
  return serveStateStream('global', { prepare: prepareGlobalState, encode: encodeGlobalStateResponse }, options);
}
