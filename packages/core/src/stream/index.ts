/**
 * The full-state stream (ARCHITECTURE.md item 5): the in-process hub, the gRPC servers for the
 * node-local (`kpng.localnet.v1`) and global (`kpng.global.v1`) APIs, and the client library.
 * Candidates for `src/public/index.ts` are listed here by name.
 */
export { StateHub, type StateHubOptions, type ResumeToken, type Delivery, type StateSource } from './hub.js';
export { unionChanges } from './changes.js';
export { serveLocalState, type ServeLocalOptions } from './server/local-server.js';
export { serveGlobalState } from './server/global-server.js';
export { DEFAULT_HEARTBEAT_INTERVAL_MS, type ServeOptions, type StreamServer } from './server/stream-server.js';
export type { StreamObserver } from './server/server-session.js';
export type { StreamApi } from './service-definitions.js';
export { readStreamTls, type StreamTls, type StreamTlsFiles } from './tls.js';
export { DEFAULT_LOCAL_ADDRESS, parseDialAddress, parseServeAddress } from './stream-address.js';
export { watchLocalState, watchGlobalState, watchHub, type WatchOptions } from './client/client.js';
export { DEFAULT_MAX_MESSAGE_BYTES } from './client/grpc-source.js';
export type { StateHandler, WatchInfo } from './client/consume.js';
export { run, type RunOptions } from './client/run.js';
export type { BackoffOptions } from './client/backoff.js';
