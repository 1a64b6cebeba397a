/** Syncing a backend: client-go style work queues, kube-proxy's runner and the sync loop. */
export type { Backend, SyncRequest } from './backend.js';
export { WorkQueue } from './workqueue.js';
export { DelayingQueue } from './delaying-queue.js';
export { RateLimitingQueue } from './rate-limiting-queue.js';
export {
  type RateLimiter,
  ItemExponentialFailureRateLimiter,
  BucketRateLimiter,
  MaxOfRateLimiter,
  defaultControllerRateLimiter,
} from './rate-limiter.js';
export { SyncRunner, type SyncRunnerOptions } from './runner.js';
export { SyncLoop, type SyncLoopOptions, type SyncMetrics, type SyncHealth, type ServiceHealthSync } from './sync-loop.js';
export { PendingChanges } from './pending-changes.js';
export { countNoLocalEndpoints, type NoLocalEndpointsCount } from './no-local-endpoints.js';
