/**
 * The judgement of check-clusterloader2-run: did clusterloader2's NetworkPolicyEnforcement pods run
 * kpng's clients (not upstream's images, which clusterloader2 would pull just as happily), and did
 * samples arrive? clusterloader2 itself reports a run whose clients measured nothing as a pass (its
 * Prometheus queries only warn on zero samples); this check makes that a failure.
 */

/** clusterloader2's `type` label of the client Deployments, and the histogram each one fills. */
export const TEST_TYPES = {
  'pod-creation': 'pod_creation_reachability_latency_seconds_count',
  'policy-creation': 'policy_enforcement_latency_policy_creation_seconds_count',
} as const;
export type TestType = keyof typeof TEST_TYPES;

export interface ClientPod {
  readonly name: string;
  /** The pod's `type` label. */
  readonly type: string | undefined;
  /** As the pod spec names it, and as the runtime resolved it (`containerStatuses[].imageID`: the digest). */
  readonly image: string;
  readonly imageID: string;
  /** The pod's /metrics text, or why it could not be read. */
  readonly metrics: { readonly text: string } | { readonly error: string };
}

export interface MetricsFacts {
  /** `kpng_test_client_info` is present: kpng's binary answered. */
  readonly kpng: boolean;
  readonly program?: string;
  readonly version?: string;
  readonly mode?: string;
  /** Sample counts of each upstream histogram, summed over label sets. */
  readonly samples: Readonly<Record<TestType, number>>;
}

export interface PodVerdict {
  readonly name: string;
  readonly type: string | undefined;
  readonly image: string;
  readonly imageID: string;
  readonly facts?: MetricsFacts;
  readonly problems: readonly string[];
}

export interface RunVerdict {
  readonly ok: boolean;
  readonly pods: readonly PodVerdict[];
  /** Samples per test type over all pods of that type. */
  readonly samples: Readonly<Partial<Record<TestType, number>>>;
  readonly problems: readonly string[];
}

export interface JudgeOptions {
  /** Test types that must have run (client pods present) and measured (samples > 0). */
  readonly require: readonly TestType[];
  /** When given, every pod's resolved image (digest) must contain this. */
  readonly expectImageID?: string;
}

/** Reads what matters from a Prometheus text exposition. */
export function inspectMetrics(text: string): MetricsFacts {
  const samples = { 'pod-creation': 0, 'policy-creation': 0 };
  let info: Record<string, string> | undefined;
  for (const line of text.split('\n')) {
    if (line.startsWith('#') || line.trim() === '') continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})?\s+(\S+)/.exec(line);
    if (!match) continue;
    const [, name, labels = '', value] = match;
    if (name === 'kpng_test_client_info')
      info = Object.fromEntries([...labels.matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1]!, m[2]!]));
    for (const [type, metric] of Object.entries(TEST_TYPES) as [TestType, string][])
      if (name === metric) samples[type] += Number(value);
  }
  return {
    kpng: info !== undefined,
    ...(info?.['program'] !== undefined ? { program: info['program'] } : {}),
    ...(info?.['version'] !== undefined ? { version: info['version'] } : {}),
    ...(info?.['mode'] !== undefined ? { mode: info['mode'] } : {}),
    samples,
  };
}

export function judgeRun(pods: readonly ClientPod[], options: JudgeOptions): RunVerdict {
  const problems: string[] = [];
  const samples: Partial<Record<TestType, number>> = {};
  const verdicts = pods.map((pod): PodVerdict => {
    const own: string[] = [];
    if (options.expectImageID !== undefined && !pod.imageID.includes(options.expectImageID))
      own.push(`runs image ${pod.imageID || pod.image}, not ${options.expectImageID}`);
    if ('error' in pod.metrics) {
      own.push(`metrics unreadable: ${pod.metrics.error}`);
      return { name: pod.name, type: pod.type, image: pod.image, imageID: pod.imageID, problems: own };
    }
    const facts = inspectMetrics(pod.metrics.text);
    if (!facts.kpng)
      own.push('not a kpng client (no kpng_test_client_info): the node pulled another image under this name');
    if (isTestType(pod.type)) samples[pod.type] = (samples[pod.type] ?? 0) + facts.samples[pod.type];
    return { name: pod.name, type: pod.type, image: pod.image, imageID: pod.imageID, facts, problems: own };
  });
  if (pods.length === 0) problems.push('no client pods found');
  for (const type of options.require) {
    if (!pods.some((p) => p.type === type)) problems.push(`no ${type} client pod`);
  }
  for (const [type, count] of Object.entries(samples) as [TestType, number][]) {
    if (count === 0) problems.push(`${type}: zero samples in ${TEST_TYPES[type]}: the measurement measured nothing`);
  }
  for (const v of verdicts) for (const p of v.problems) problems.push(`${v.name}: ${p}`);
  return { ok: problems.length === 0, pods: verdicts, samples, problems };
}

function isTestType(type: string | undefined): type is TestType {
  return type !== undefined && type in TEST_TYPES;
}
