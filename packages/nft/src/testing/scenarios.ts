// The every-feature scenario on the lab's addresses lives in core (`@kpng/core/testing`), shared by every backend's tests.
export {
  allFeatures,
  CLIENT_RANGES,
  clusterIPs,
  externalIPs,
  on,
  OTHER_RANGES,
  POD,
  REMOTE_NODE,
  type PodName,
} from '@kpng/core/testing';
