import type { EndpointSliceModel, NodeModel, NodeName, ServiceKey, ServiceModel } from './types.js';

/** Read access to the global model at its current revision (what the node-local view is computed from). */
export interface ModelReader {
  readonly revision: number;
  service(key: ServiceKey): ServiceModel | undefined;
  /** EndpointSlices whose `kubernetes.io/service-name` label names this Service (same namespace). */
  slicesOf(key: ServiceKey): Iterable<EndpointSliceModel>;
  node(name: NodeName): NodeModel | undefined;
  serviceKeys(): Iterable<ServiceKey>;
  /** The union of every ServiceCIDR's ranges, sorted; empty when none exist (or none are watched). */
  serviceCIDRs?(): readonly string[];
}
