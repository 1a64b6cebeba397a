import { describe, expect, it } from 'vitest';
import {
  podCreationConfig,
  podCreationFlags,
  policyCreationConfig,
  policyCreationFlags,
  serviceProgrammingConfig,
  serviceProgrammingFlags,
} from './clients.js';
import { ConfigError } from './common.js';

const UPSTREAM = [
  '-HostNamespace=default',
  '-TargetLabelSelector=target=test-policy',
  '-TargetNamespace=test-policy',
  '-TargetPort=80',
  '-MaxTargets=20',
  '-MetricsPort=9160',
];
const pod = (argv: string[]) => podCreationConfig(podCreationFlags().parse(argv));
const policy = (argv: string[]) => policyCreationConfig(policyCreationFlags().parse(argv));
const svc = (argv: string[]) => serviceProgrammingConfig(serviceProgrammingFlags().parse(argv));

describe('pod-creation configuration', () => {
  it("accepts upstream's example invocation unchanged, with upstream defaults", () => {
    const config = pod(UPSTREAM);
    expect(config.targets).toEqual({
      hostNamespace: 'default',
      targetLabelSelector: 'target=test-policy',
      targetNamespace: 'test-policy',
      targetPort: 80,
      maxTargets: 20,
    });
    expect(config.serve).toEqual({ metricsPort: 9160, metricsBindAddress: '', kubeconfig: '' });
    // Upstream mode by default: curl after curl, 1 s per attempt, no deadline; at least 10 ms between
    // starts, here 20 ms: 20 targets x 50/s stay under -MaxProbeRate (1000/s).
    expect(config.probe).toEqual({
      mode: 'upstream',
      cadence: 'sequential',
      intervalMs: 20,
      attemptTimeoutMs: 1_000,
      targetTimeoutMs: 0,
      ipFamily: undefined,
    });
    expect(
      pod(UPSTREAM.filter((f) => !f.startsWith('-MetricsPort') && !f.startsWith('-MaxTargets'))).serve.metricsPort,
    ).toBe(9154);
    expect(pod(UPSTREAM.filter((f) => !f.startsWith('-MaxTargets'))).targets.maxTargets).toBe(100);
  });

  it("accepts clusterloader2's invocation, as its `sh -c` hands it over", () => {
    // dep-test-client-pod-creation.yaml: ./pod-creation-reachability-latency -HostNamespace="{{.Namespace}}" -TargetLabelSelector="{{.TargetLabelSelector}}" ...
    const config = pod([
      '-HostNamespace=net-policy-test',
      '-TargetLabelSelector=net-pol-test = enforcement-latency',
      '-TargetNamespace=test-ns-1',
      '-TargetPort=80',
      '-MaxTargets=100',
      '-MetricsPort=9160',
    ]);
    expect(config.targets).toMatchObject({
      targetLabelSelector: 'net-pol-test = enforcement-latency',
      maxTargets: 100,
    });
  });

  it('accepts the kebab-case aliases', () => {
    const config = pod([
      '--host-namespace=a',
      '--target-label-selector=x=y',
      '--target-namespace=b',
      '--target-port=8080',
      '--mode=precise',
      '--probe-interval=20ms',
      '--max-probe-rate=0',
      '--ip-family=IPv6',
      '--target-timeout=0',
    ]);
    expect(config.targets.targetPort).toBe(8080);
    expect(config.probe).toEqual({
      mode: 'precise',
      cadence: 'interval',
      intervalMs: 20,
      attemptTimeoutMs: 1_000,
      targetTimeoutMs: 0,
      ipFamily: 'IPv6',
    });
  });

  it('precise mode has its own defaults: 100 ms grid, a 10-minute deadline', () => {
    expect(pod([...UPSTREAM, '-Mode=precise']).probe).toEqual({
      mode: 'precise',
      cadence: 'interval',
      intervalMs: 100,
      attemptTimeoutMs: 1_000,
      targetTimeoutMs: 600_000,
      ipFamily: undefined,
    });
  });

  it.each([
    // MaxTargets, mode, flags -> interval: MaxTargets x 1000 / interval must stay under -MaxProbeRate (1000/s)
    [20, 'upstream', [], 20],
    [100, 'upstream', [], 100],
    [100, 'precise', [], 100],
    [1_000, 'precise', [], 1_000],
    [100, 'precise', ['-ProbeInterval=5ms'], 100],
    [100, 'precise', ['-ProbeInterval=5ms', '-MaxProbeRate=0'], 5],
    [100, 'upstream', ['-MaxProbeRate=20000'], 10],
  ] as const)(
    'MaxTargets=%i, %s mode, %j: the interval is %i ms (probe load capped)',
    (maxTargets, mode, extra, interval) => {
      const argv = [
        ...UPSTREAM.filter((f) => !f.startsWith('-MaxTargets')),
        `-MaxTargets=${maxTargets}`,
        `-Mode=${mode}`,
        ...extra,
      ];
      expect(pod(argv).probe.intervalMs).toBe(interval);
    },
  );

  it.each([
    [['-HostNamespace='], '-HostNamespace is required'],
    [['-TargetLabelSelector='], '-TargetLabelSelector is required'],
    [['-TargetNamespace='], '-TargetNamespace is required'],
    [['-TargetPort=0'], '-TargetPort must be between 1 and 65535 (got 0)'],
    [['-TargetPort=70000'], '-TargetPort must be between 1 and 65535 (got 70000)'],
    [['-MaxTargets=0'], '-MaxTargets must be at least 1 (got 0)'],
    [['-MetricsPort=0'], '-MetricsPort must be between 1 and 65535 (got 0)'],
    [['-MetricsBindAddress=localhost'], '-MetricsBindAddress must be an IP address'],
    [['-ProbeInterval=0'], '-ProbeInterval must be at least 1ms'],
    [['-IPFamily=IPv5'], '-IPFamily must be IPv4, IPv6 or empty'],
    [['-Mode=fast'], '-Mode must be upstream or precise'],
    [['-MaxProbeRate=-1'], '-MaxProbeRate must be at least 0'],
  ])('%j is rejected: %s', (override, message) => {
    expect(() => pod([...UPSTREAM, ...override])).toThrow(ConfigError);
    expect(() => pod([...UPSTREAM, ...override])).toThrow(message);
  });
});

describe('policy-creation configuration', () => {
  it('requires AllowPolicyName', () => {
    expect(() => policy(UPSTREAM)).toThrow('-AllowPolicyName is required');
    expect(policy([...UPSTREAM, '-AllowPolicyName=allow-egress-to-target'])).toMatchObject({
      allowPolicyName: 'allow-egress-to-target',
      measurePolicyDeletion: false,
      denyPolicyName: '',
    });
  });

  it('measures revocation on request, by deletion or by a deny policy', () => {
    expect(policy([...UPSTREAM, '-AllowPolicyName=a', '-MeasurePolicyDeletion'])).toMatchObject({
      measurePolicyDeletion: true,
      denyPolicyName: '',
    });
    expect(
      policy([...UPSTREAM, '--allow-policy-name=a', '--measure-policy-deletion', '--deny-policy-name=d']),
    ).toMatchObject({ denyPolicyName: 'd' });
    expect(() => policy([...UPSTREAM, '-AllowPolicyName=a', '-DenyPolicyName=d'])).toThrow(
      '-DenyPolicyName only makes sense with -MeasurePolicyDeletion',
    );
    expect(() => policy([...UPSTREAM, '-AllowPolicyName=a', '-MeasurePolicyDeletion', '-DenyPolicyName=a'])).toThrow(
      'must differ',
    );
  });
});

describe('service-programming configuration', () => {
  const BASE = ['--service-namespace=default', '--service-name=web'];

  it('has useful defaults', () => {
    expect(svc(BASE)).toMatchObject({
      servicePort: 0,
      nodeIP: '',
      match: 'endpoint-name',
      maxMeasurements: 0,
      connectionsPerAttempt: 1,
      probe: { targetTimeoutMs: 300_000 },
      serve: { metricsPort: 9154 },
    });
  });

  it.each([
    [[], '-ServiceNamespace is required'],
    [['--service-namespace=default'], '-ServiceName is required'],
    [[...BASE, '--service-port=99999'], '-ServicePort must be between 1 and 65535'],
    [[...BASE, '--node-ip=node-a'], '-NodeIP must be an IP address'],
    [[...BASE, '--match=http'], '-Match must be endpoint-name or connect'],
    [[...BASE, '--max-measurements=-1'], '-MaxMeasurements must be at least 0'],
    [[...BASE, '--connections-per-attempt=0'], '-ConnectionsPerAttempt must be between 1 and 64'],
  ])('%j is rejected: %s', (argv, message) => expect(() => svc(argv)).toThrow(message));
});
