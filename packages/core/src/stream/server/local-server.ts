import type { NodeLocalState } from '../../nodeview/types.js';
import { encodeLocalStateResponse, prepareLocalState } from '../codec/local-encode.js';
import type { StateHub } from '../hub.js';
import { DEFAULT_LOCAL_ADDRESS } from '../stream-address.js';
import { serveStateStream, type ServeOptions, type StreamServer } from './stream-server.js';

/** The node-local stream never leaves the node: a unix socket or loopback, so no TLS. */
export type ServeLocalOptions = Omit<ServeOptions<NodeLocalState>, 'address' | 'tls'> & {
  readonly hub: StateHub<NodeLocalState>;
  /** Default `unix:///run/kpng/kpng.sock` (socket mode 0600, parent directory created). */
  readonly address?: string;
};

/** Serves `kpng.localnet.v1.LocalState`: this node's full state, from `hub`. */
export function serveLocalState(options: ServeLocalOptions): Promise<StreamServer> {
  return serveStateStream(
    'local',
    { prepare: prepareLocalState, encode: encodeLocalStateResponse },
    {
      ...options,
      address: options.address ?? DEFAULT_LOCAL_ADDRESS,
    },
  );
}
