import type { ServiceModel, SessionAffinity, TrafficPolicy } from '../../model/types.js';
import { FieldErrors, isJsonObject, type JsonObject } from './fields.js';
import { readMetadata } from './names.js';
import { type Converted, finish, rejected } from './result.js';
import { readClusterIPs, readExternalIPs, readLoadBalancerIPs, readSourceRanges } from './service-ips.js';
import { readServicePorts } from './service-ports.js';

const SERVICE_TYPES = ['ClusterIP', 'NodePort', 'LoadBalancer', 'ExternalName'] as const;
const TRAFFIC_POLICIES: readonly TrafficPolicy[] = ['Cluster', 'Local'];
const DEFAULT_AFFINITY_TIMEOUT_SECONDS = 10800;
/** Upstream's literal annotation key (no prefix); only the exact value "true" turns it on. */
export const PRESERVE_DESTINATION_ANNOTATION = 'preserve-destination';
const MAX_AFFINITY_TIMEOUT_SECONDS = 86400;

function readSessionAffinity(fields: FieldErrors, spec: JsonObject): SessionAffinity | undefined {
  const type = fields.oneOf(spec['sessionAffinity'], 'spec.sessionAffinity', ['None', 'ClientIP'], 'None');
  if (type !== 'ClientIP') return type && { type };
  const config = fields.object(spec['sessionAffinityConfig'], 'spec.sessionAffinityConfig');
  const clientIP = fields.object(config?.['clientIP'], 'spec.sessionAffinityConfig.clientIP');
  const timeoutSeconds = fields.int(
    clientIP?.['timeoutSeconds'],
    'spec.sessionAffinityConfig.clientIP.timeoutSeconds',
    {
      min: 1,
      max: MAX_AFFINITY_TIMEOUT_SECONDS,
    },
  );
  const timeoutGiven = clientIP?.['timeoutSeconds'] !== undefined && clientIP['timeoutSeconds'] !== null;
  if (timeoutGiven && timeoutSeconds === undefined) return undefined;
  return { type, timeoutSeconds: timeoutSeconds ?? DEFAULT_AFFINITY_TIMEOUT_SECONDS };
}

/**
 * A Service as the proxy needs it, passing `serviceProblems` (validate.ts) by construction: every
 * check is made once, here, while reading (the property test in validate.test.ts holds the two
 * together). `null` for Services a proxy skips (semantics 2.2): headless
 * (`clusterIP` empty or `None`) and `ExternalName`.
 */
export function convertService(obj: unknown): Converted<ServiceModel | null> {
  if (!isJsonObject(obj)) return rejected(['must be an object']);
  const fields = new FieldErrors();
  const meta = readMetadata(fields, obj, true);
  const spec = fields.object(obj['spec'], 'spec', { required: true });
  const type = fields.oneOf(spec?.['type'], 'spec.type', SERVICE_TYPES, 'ClusterIP');
  if (!fields.ok || !spec || !meta || type === undefined) return rejected(fields.errors);
  if (type === 'ExternalName') return { ok: true, value: null };
  const clusterIPs = readClusterIPs(fields, spec);
  if (clusterIPs === null && fields.ok) return { ok: true, value: null };

  const ports = readServicePorts(fields, spec);
  const externalIPs = readExternalIPs(fields, spec);
  const loadBalancerIPs = readLoadBalancerIPs(fields, obj);
  const loadBalancerSourceRanges = readSourceRanges(fields, spec);
  const sessionAffinity = readSessionAffinity(fields, spec);
  const externalTrafficPolicy = fields.oneOf(
    spec['externalTrafficPolicy'],
    'spec.externalTrafficPolicy',
    TRAFFIC_POLICIES,
    'Cluster',
  );
  const internalTrafficPolicy = fields.oneOf(
    spec['internalTrafficPolicy'],
    'spec.internalTrafficPolicy',
    TRAFFIC_POLICIES,
    'Cluster',
  );
  const healthCheckNodePort =
    fields.int(spec['healthCheckNodePort'], 'spec.healthCheckNodePort', { min: 0, max: 65535 }) ?? 0;
  const trafficDistribution = fields.text(spec['trafficDistribution'], 'spec.trafficDistribution');
  const preserveDestination = meta.annotations[PRESERVE_DESTINATION_ANNOTATION] === 'true';

  return finish(fields, () => ({
    namespace: meta.namespace,
    name: meta.name,
    type,
    clusterIPs: clusterIPs!,
    externalIPs,
    loadBalancerIPs,
    loadBalancerSourceRanges,
    ports,
    sessionAffinity: sessionAffinity!,
    externalTrafficPolicy: externalTrafficPolicy!,
    internalTrafficPolicy: internalTrafficPolicy!,
    healthCheckNodePort,
    ...(trafficDistribution ? { trafficDistribution } : {}),
    ...(preserveDestination ? { preserveDestination: true as const } : {}),
  }));
}
