// Fake Kubernetes API server (real HTTP list/watch) for API end-to-end tests.
export {
  FakeApiServer,
  kubeconfigFor,
  kubeconfigYaml,
  StoreError,
  type CompactOptions,
  type FailureOptions,
  type KubeMetadata,
  type KubeObject,
  type LabKubeconfig,
  type RecordedRequest,
  type RequestFilter,
  type RequestVerb,
  type StoredObject,
} from './apiserver/index.js';
