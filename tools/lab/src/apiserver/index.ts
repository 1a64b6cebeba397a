export { FakeApiServer, type CompactOptions, type FakeApiServerOptions } from './fake-api-server.js';
export type { FailureOptions } from './injected-failures.js';
export { kubeconfigFor, kubeconfigYaml, type LabKubeconfig } from './kubeconfig.js';
export { StoreError, type KubeMetadata, type KubeObject, type StoredObject } from './object-store.js';
export type { RecordedRequest, RequestFilter, RequestVerb } from './request-log.js';
