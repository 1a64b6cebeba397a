import { Histogram, type Registry } from 'prom-client';
import type { Mode } from '../config/common.js';
import type { Observe } from '../probe/target-book.js';
import { LATENCY_BUCKETS, NPL_BUCKETS } from './buckets.js';
import { TrackingMetrics } from './tracking.js';

/** Exposed names. The first three are upstream's, unchanged; the others follow their style. */
export const METRIC_NAMES = {
  podIpAssigned: 'pod_ip_address_assigned_latency_seconds',
  podReachability: 'pod_creation_reachability_latency_seconds',
  policyCreation: 'policy_enforcement_latency_policy_creation_seconds',
  policyDeletion: 'policy_enforcement_latency_policy_deletion_seconds',
  serviceProgramming: 'service_programming_latency_seconds',
} as const;

/**
 * An upstream-named histogram, upstream's buckets. In upstream mode it is plain (no labels), exactly
 * as upstream exposes it. In precise mode its samples mean something else (another start, another
 * cadence), so they carry `mode="precise"` and `start`: a series never mixes modes or start sources,
 * and `sum(...) by (le)` queries still work on either.
 */
function upstreamHistogram(registry: Registry, mode: Mode, name: string, help: string): Observe {
  if (mode === 'upstream') {
    const histogram = new Histogram({ name, help, buckets: [...LATENCY_BUCKETS], registers: [registry] });
    return (seconds) => histogram.observe(seconds);
  }
  const histogram = new Histogram({
    name,
    help: `${help} (kpng precise mode; start: what it is measured from)`,
    labelNames: ['mode', 'start'],
    buckets: [...LATENCY_BUCKETS],
    registers: [registry],
  });
  return (seconds, start) => histogram.observe({ mode, start }, seconds);
}

export interface PodCreationMetrics {
  readonly ipAssigned: Observe;
  readonly reachability: Observe;
  readonly tracking: TrackingMetrics;
}

export function podCreationMetrics(registry: Registry, mode: Mode): PodCreationMetrics {
  const tracking = new TrackingMetrics(registry);
  tracking.init('pod_ip_address_assigned');
  tracking.init('pod_creation_reachability');
  return {
    ipAssigned: upstreamHistogram(
      registry,
      mode,
      METRIC_NAMES.podIpAssigned,
      'Latency from pod creation (creationTimestamp) until the test client saw the pod with an IP address assigned.',
    ),
    reachability: upstreamHistogram(
      registry,
      mode,
      METRIC_NAMES.podReachability,
      'Latency from the test client seeing a new pod with an IP address until it first connected to the pod.',
    ),
    tracking,
  };
}

export interface PolicyMetrics {
  readonly creation: Observe;
  /** Only when revocation is measured: nothing is exposed for a measurement that does not run. */
  readonly deletion: Observe | undefined;
  readonly tracking: TrackingMetrics;
}

export function policyMetrics(
  registry: Registry,
  mode: Mode,
  options: { readonly measureDeletion: boolean },
): PolicyMetrics {
  const tracking = new TrackingMetrics(registry);
  tracking.init('policy_creation');
  if (options.measureDeletion) tracking.init('policy_deletion');
  return {
    creation: upstreamHistogram(
      registry,
      mode,
      METRIC_NAMES.policyCreation,
      'Latency from the creation of a network policy allowing traffic to a target pod until the test client first connected to it.',
    ),
    deletion: options.measureDeletion
      ? upstreamHistogram(
          registry,
          mode,
          METRIC_NAMES.policyDeletion,
          'Latency from the deletion of the allow policy (or the creation of a deny policy) until connections to a target pod first failed.',
        )
      : undefined,
    tracking,
  };
}

export interface ServiceMetrics {
  readonly programming: Histogram<'path' | 'ip_family' | 'start'>;
  readonly tracking: TrackingMetrics;
}

export function serviceMetrics(registry: Registry): ServiceMetrics {
  const tracking = new TrackingMetrics(registry);
  tracking.init('service_programming');
  return {
    programming: new Histogram({
      name: METRIC_NAMES.serviceProgramming,
      help: 'Latency from an EndpointSlice change until the new endpoint answered through the Service, measured from start="trigger-time" (endpoints.kubernetes.io/last-change-trigger-time, as kubeproxy_network_programming_duration_seconds, whose buckets these are) or start="watch" (this client\'s watch event, every change). Filter on start: each change is in both series when it has a trigger time.',
      labelNames: ['path', 'ip_family', 'start'],
      buckets: [...NPL_BUCKETS],
      registers: [registry],
    }),
    tracking,
  };
}
