/**
 * @kpng/core/stream: the full-state stream. The client library (`watchLocalState`, `run`) for a
 * backend in another process, and the servers and hub for programs that serve states themselves.
 */
export {
  StateHub,
  serveLocalState,
  serveGlobalState,
  watchLocalState,
  watchGlobalState,
  watchHub,
  run,
  DEFAULT_LOCAL_ADDRESS,
  readStreamTls,
  type StreamTls,
  type StreamTlsFiles,
  type ResumeToken,
  type Delivery,
  type StateSource,
  type StreamServer,
  type StateHandler,
  type WatchInfo,
  type WatchOptions,
  type RunOptions,
} from '../stream/index.js';
