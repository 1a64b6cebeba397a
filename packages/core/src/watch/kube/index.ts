/** The `kube` source: Services, EndpointSlices and Nodes from the API server, one informer per kind (`KindInformer`). */
export { KubeSource, type KubeSourceOptions } from './kube-source.js';
export { EventBatcher, type Conversion, type EventBatcherOptions } from './event-batcher.js';
export { loadKubeConfig, type KubeConfigLocation } from './load-kubeconfig.js';
export { HEADLESS_LABEL, SERVICE_PROXY_NAME_LABEL, nodeFieldSelector, proxyLabelSelector } from './selectors.js';
export { REFLECTOR_BACKOFF, UNREACHABLE_BACKOFF, type BackoffOptions } from './reconnect-rounds.js';
export { DEFAULT_RATE_LIMIT, type RateLimit } from './request-rate-limiter.js';
