import type { GlobalSnapshot } from '../../model/global-model.js';
import { encodeGlobalStateResponse } from '../codec/global-encode.js';
import { serveStateStream, type ServeOptions, type StreamServer } from './stream-server.js';

/**
 * Serves `kpng.global.v1.GlobalState`: the whole global model, for node agents in the central-core
 * mode. Serving to other nodes needs `allowRemote: true` and a non-loopback address; the stream is
 * plaintext and unauthenticated, so expose it only on a trusted network.
 */
export function serveGlobalState(options: ServeOptions<GlobalSnapshot>): Promise<StreamServer> {
  return serveStateStream('global', encodeGlobalStateResponse, options);
}
