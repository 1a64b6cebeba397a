import type { NodeLocalState } from '../../nodeview/types.js';
import { watchLocalState, type WatchOptions } from './client.js';
import type { StateHandler } from './consume.js';
import { DEFAULT_LOCAL_ADDRESS } from '../stream-address.js';

export interface RunOptions extends WatchOptions {
  /** Default: `$KPNG_ADDRESS`, else `unix:///run/kpng/kpng.sock`. */
  readonly address?: string;
}

/**
 * The ten-line backend (KPNG's `client.Run`): calls `handler` with each new full node-local state
 * until SIGINT or SIGTERM (or `options.signal`), reconnecting with backoff.
 *
 *     await run(async (state, { full, changes }) => { ...program the node... });
 */
export async function run(handler: StateHandler<NodeLocalState>, options: RunOptions = {}): Promise<void> {
  const address = options.address ?? process.env['KPNG_ADDRESS'] ?? DEFAULT_LOCAL_ADDRESS;
  if (options.signal) return watchLocalState(address, handler, options);
  const stop = new AbortController();
  const onSignal = () => stop.abort();
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    await watchLocalState(address, handler, { ...options, signal: stop.signal });
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}
