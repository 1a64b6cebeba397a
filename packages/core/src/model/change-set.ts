import type { PodKey, PolicyKey } from '../policy/types.js';
import type { NodeName, ServiceKey } from './types.js';
import { addTriggerTimes } from '../util/trigger-times.js';

/**
 * What one transaction on the global model changed. Mirrors kube-proxy's change trackers: the
 * Services whose own object or EndpointSlices changed, and the endpoint trigger times that
 * `network_programming_duration_seconds` is measured from.
 */
export interface ChangeSet {
  readonly revision: number;
  readonly services: ReadonlySet<ServiceKey>;
  readonly nodes: ReadonlySet<NodeName>;
  /** The union of the ServiceCIDRs' ranges changed. */
  readonly serviceCIDRs: boolean;
  /** Epoch ms per Service, only values newer than the model's start time (kube-proxy 7.2). */
  readonly triggerTimes: ReadonlyMap<ServiceKey, readonly number[]>;
  /** Pods, Namespaces and NetworkPolicies whose content changed (only when watched for policy). */
  readonly pods: ReadonlySet<PodKey>;
  readonly namespaces: ReadonlySet<string>;
  readonly policies: ReadonlySet<PolicyKey>;
}

/** Mutable builder used while one transaction is applied. */
export class ChangeSetBuilder {
  readonly services = new Set<ServiceKey>();
  readonly nodes = new Set<NodeName>();
  readonly triggerTimes = new Map<ServiceKey, number[]>();
  readonly pods = new Set<PodKey>();
  readonly namespaces = new Set<string>();
  readonly policies = new Set<PolicyKey>();
  serviceCIDRs = false;

  get empty(): boolean {
    return (
      this.services.size === 0 &&
      this.nodes.size === 0 &&
      !this.serviceCIDRs &&
      this.pods.size === 0 &&
      this.namespaces.size === 0 &&
      this.policies.size === 0
    );
  }

  addTriggerTime(svc: ServiceKey, time: number): void {
    addTriggerTimes(this.triggerTimes, svc, [time]);
  }

  /** A deleted slice's annotation describes its last update, not the deletion: drop what is pending. */
  dropTriggerTimes(svc: ServiceKey): void {
    this.triggerTimes.delete(svc);
  }

  build(revision: number): ChangeSet {
    return {
      revision,
      services: this.services,
      nodes: this.nodes,
      serviceCIDRs: this.serviceCIDRs,
      triggerTimes: this.triggerTimes,
      pods: this.pods,
      namespaces: this.namespaces,
      policies: this.policies,
    };
  }
}
