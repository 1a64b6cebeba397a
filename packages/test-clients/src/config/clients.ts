import { isIP } from 'node:net';
import type { MatchMode } from '../clients/service-programming/client.js';
import {
  atLeast,
  ConfigError,
  defineModeFlags,
  defineProbeFlags,
  defineServeFlags,
  defineTargetFlags,
  port,
  probeSettings,
  required,
  serveSettings,
  targetSettings,
  type ProbeSettings,
  type ServeSettings,
  type TargetSettings,
} from './common.js';
import { FlagSet, type ParsedFlags } from './flags.js';

/** A target pod not reached within 10 minutes counts as unreached. */
const NETPOL_TARGET_TIMEOUT_MS = 10 * 60_000;
/** A Service endpoint not answering within 5 minutes (kube-proxy's NPL buckets end at 300 s). */
const SERVICE_TARGET_TIMEOUT_MS = 5 * 60_000;

export interface PodCreationConfig {
  readonly targets: TargetSettings;
  readonly probe: ProbeSettings;
  readonly serve: ServeSettings;
}

export function podCreationFlags(): FlagSet {
  const fs = new FlagSet('pod-creation-reachability-latency');
  return defineModeFlags(defineProbeFlags(defineServeFlags(defineTargetFlags(fs)), NETPOL_TARGET_TIMEOUT_MS));
}

export function podCreationConfig(flags: ParsedFlags): PodCreationConfig {
  const targets = targetSettings(flags);
  return { targets, probe: probeSettings(flags, targets.maxTargets), serve: serveSettings(flags) };
}

export interface PolicyCreationConfig extends PodCreationConfig {
  readonly allowPolicyName: string;
  readonly measurePolicyDeletion: boolean;
  readonly denyPolicyName: string;
}

export function policyCreationFlags(): FlagSet {
  const fs = new FlagSet('policy-creation-enforcement-latency')
    .define({
      name: 'AllowPolicyName',
      alias: 'allow-policy-name',
      kind: 'string',
      default: '',
      usage:
        'The name of the egress policy (in HostNamespace) that allows traffic from the test client pods to the target pods (required).',
    })
    .define({
      name: 'MeasurePolicyDeletion',
      alias: 'measure-policy-deletion',
      kind: 'bool',
      default: false,
      usage:
        'After the creation measurement, also measure revocation: how long until traffic stops once the allow policy is deleted (or -DenyPolicyName is created). Needs watch permission on networkpolicies.',
    })
    .define({
      name: 'DenyPolicyName',
      alias: 'deny-policy-name',
      kind: 'string',
      default: '',
      usage:
        'With -MeasurePolicyDeletion: revocation is the creation of this policy in HostNamespace instead of the deletion of the allow policy.',
    });
  return defineModeFlags(defineProbeFlags(defineServeFlags(defineTargetFlags(fs)), NETPOL_TARGET_TIMEOUT_MS));
}

export function policyCreationConfig(flags: ParsedFlags): PolicyCreationConfig {
  const allowPolicyName = flags.string('AllowPolicyName');
  required('AllowPolicyName', allowPolicyName);
  const denyPolicyName = flags.string('DenyPolicyName');
  const measurePolicyDeletion = flags.bool('MeasurePolicyDeletion');
  if (denyPolicyName !== '' && !measurePolicyDeletion)
    throw new ConfigError('-DenyPolicyName only makes sense with -MeasurePolicyDeletion');
  if (denyPolicyName !== '' && denyPolicyName === allowPolicyName)
    throw new ConfigError('-DenyPolicyName must differ from -AllowPolicyName');
  return { ...podCreationConfig(flags), allowPolicyName, measurePolicyDeletion, denyPolicyName };
}

export interface ServiceProgrammingConfig {
  readonly serviceNamespace: string;
  readonly serviceName: string;
  readonly servicePort: number;
  readonly nodeIP: string;
  readonly match: MatchMode;
  readonly maxMeasurements: number;
  readonly connectionsPerAttempt: number;
  readonly probe: ProbeSettings;
  readonly serve: ServeSettings;
}

export function serviceProgrammingFlags(): FlagSet {
  const fs = new FlagSet('service-programming-latency')
    .define({
      name: 'ServiceNamespace',
      alias: 'service-namespace',
      kind: 'string',
      default: '',
      usage: 'The namespace of the Service to measure (required).',
    })
    .define({
      name: 'ServiceName',
      alias: 'service-name',
      kind: 'string',
      default: '',
      usage: 'The Service to measure (required).',
    })
    .define({
      name: 'ServicePort',
      alias: 'service-port',
      kind: 'int',
      default: 0,
      usage: 'The Service port to probe; 0: its first TCP port.',
    })
    .define({
      name: 'NodeIP',
      alias: 'node-ip',
      kind: 'string',
      default: '',
      usage: "Also probe the port's NodePort on this node address.",
    })
    .define({
      name: 'Match',
      alias: 'match',
      kind: 'string',
      default: 'endpoint-name',
      usage:
        "How a probe knows the changed endpoint answered: 'endpoint-name' (the reply starts with the endpoint's pod name) or 'connect' (any connection; measures only no-endpoints -> endpoints).",
    })
    .define({
      name: 'MaxMeasurements',
      alias: 'max-measurements',
      kind: 'int',
      default: 0,
      usage: 'Stop after this many samples (one per new endpoint and path); 0: run until stopped.',
    })
    .define({
      name: 'ConnectionsPerAttempt',
      alias: 'connections-per-attempt',
      kind: 'int',
      default: 1,
      usage: 'Parallel connections per attempt, to find a new endpoint sooner behind a Service with many endpoints.',
    });
  return defineProbeFlags(defineServeFlags(fs), SERVICE_TARGET_TIMEOUT_MS);
}

export function serviceProgrammingConfig(flags: ParsedFlags): ServiceProgrammingConfig {
  const serviceNamespace = flags.string('ServiceNamespace');
  const serviceName = flags.string('ServiceName');
  required('ServiceNamespace', serviceNamespace);
  required('ServiceName', serviceName);
  const servicePort = flags.int('ServicePort');
  if (servicePort !== 0) port('ServicePort', servicePort);
  const nodeIP = flags.string('NodeIP');
  if (nodeIP !== '' && isIP(nodeIP) === 0)
    throw new ConfigError(`-NodeIP must be an IP address (got ${JSON.stringify(nodeIP)})`);
  const match = flags.string('Match');
  if (match !== 'endpoint-name' && match !== 'connect')
    throw new ConfigError(`-Match must be endpoint-name or connect (got ${JSON.stringify(match)})`);
  const maxMeasurements = flags.int('MaxMeasurements');
  atLeast('MaxMeasurements', maxMeasurements, 0);
  const connectionsPerAttempt = flags.int('ConnectionsPerAttempt');
  if (connectionsPerAttempt < 1 || connectionsPerAttempt > 64)
    throw new ConfigError(`-ConnectionsPerAttempt must be between 1 and 64 (got ${connectionsPerAttempt})`);
  return {
    serviceNamespace,
    serviceName,
    servicePort,
    nodeIP,
    match,
    maxMeasurements,
    connectionsPerAttempt,
    probe: probeSettings(flags),
    serve: serveSettings(flags),
  };
}
