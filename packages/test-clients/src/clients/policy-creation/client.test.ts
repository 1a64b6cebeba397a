import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import type { ProbeSettings, TargetSettings } from '../../config/common.js';
import type { KubeObject, Pod } from '../../kube/objects.js';
import { policyMetrics } from '../../metrics/client-metrics.js';
import { FakeClock } from '../../../test/support/fake-clock.js';
import { FakeDialer } from '../../../test/support/fake-dialer.js';
import { FakeStream } from '../../../test/support/fake-stream.js';
import { MemoryLog } from '../../../test/support/log.js';
import { sampleSum, sampleValue } from '../../../test/support/metrics.js';
import { pod, policy } from '../../../test/support/objects.js';
import { PolicyCreationClient } from './client.js';
import { PolicyTracker } from './policy-tracker.js';

const TARGETS: TargetSettings = {
  hostNamespace: 'default',
  targetLabelSelector: 'target=test-policy',
  targetNamespace: 'test-policy',
  targetPort: 80,
  maxTargets: 100,
};
const PROBE: ProbeSettings = {
  mode: 'precise',
  cadence: 'interval',
  intervalMs: 20,
  attemptTimeoutMs: 500,
  targetTimeoutMs: 60_000,
  ipFamily: undefined,
};
const C = { measurement: 'policy_creation' };
const D = { measurement: 'policy_deletion' };

interface Options {
  readonly pods: Pod[];
  readonly initialPolicies?: KubeObject[];
  readonly watchForbidden?: boolean;
  readonly measureDeletion?: boolean;
  readonly denyPolicyName?: string;
  readonly maxTargets?: number;
  readonly probe?: Partial<ProbeSettings>;
}

function setup(options: Options) {
  const clock = new FakeClock(1_700_000_000_600);
  const dialer = new FakeDialer(clock, 1);
  const pods = new FakeStream<Pod>(clock).list(...options.pods);
  const policyStream = new FakeStream<KubeObject>(clock).list(...(options.initialPolicies ?? []));
  if (options.watchForbidden) policyStream.refuse(403);
  const stored = new Map<string, KubeObject>();
  const gets: string[] = [];
  const registry = new Registry();
  const log = new MemoryLog();
  const logger = log.logger(clock);
  const tracker = new PolicyTracker({
    allowPolicyName: 'allow-egress-to-target',
    denyPolicyName: options.denyPolicyName ?? '',
    policies: policyStream,
    getPolicy: async (name) => {
      gets.push(name);
      return stored.get(name);
    },
    clock,
    logger,
  });
  const client = new PolicyCreationClient(
    {
      targets: { ...TARGETS, maxTargets: options.maxTargets ?? 100 },
      probe: { ...PROBE, ...options.probe },
      allowPolicyName: 'allow-egress-to-target',
      measureDeletion: options.measureDeletion ?? false,
      pods,
      policies: tracker,
      metrics: policyMetrics(registry, options.probe?.mode ?? PROBE.mode, {
        measureDeletion: options.measureDeletion ?? false,
      }),
    },
    { clock, dialer, logger },
  );
  const stop = new AbortController();
  let finished = false;
  const running = client.run(stop.signal).then(() => (finished = true));
  /** Creates the allow policy: in the "API server" (GET) and, unless forbidden, on the watch. */
  const createAllow = (annotationAt?: number) => {
    const obj = policy('allow-egress-to-target', {
      created: clock.now(),
      ...(annotationAt !== undefined ? { createdAtAnnotation: annotationAt } : {}),
    });
    stored.set('allow-egress-to-target', obj);
    if (!options.watchForbidden) policyStream.emit('added', obj);
    return obj;
  };
  return {
    clock,
    dialer,
    pods,
    policyStream,
    stored,
    gets,
    registry,
    log,
    tracker,
    client,
    stop,
    running,
    createAllow,
    finished: () => finished,
  };
}

/** Target pods 198.18.1.10 + i. */
const targets = (n: number, created = 1_700_000_000_000) =>
  Array.from({ length: n }, (_, i) => pod(`target-${i}`, { ip: `198.18.1.${10 + i}`, created }));

describe('PolicyCreationClient: creation, upstream mode', () => {
  const UPSTREAM: Partial<ProbeSettings> = {
    mode: 'upstream',
    cadence: 'sequential',
    intervalMs: 10,
    targetTimeoutMs: 0,
    attemptTimeoutMs: 1_000,
  };

  it("measures from the allow policy's whole-second creationTimestamp even when the watch saw it, and skips listed pods without an IP", async () => {
    let created = Infinity;
    const s = setup({ pods: [...targets(1), pod('no-ip', { created: 1_700_000_000_000 })], probe: UPSTREAM });
    const t0 = s.clock.now();
    s.dialer.on('198.18.1.10', 80, (now) =>
      now >= created + 300 ? { kind: 'answer', reply: 'HTTP/1.1 200 OK' } : { kind: 'drop' },
    );
    await s.clock.advance(1_650); // denied (dropped) meanwhile
    created = s.clock.now();
    s.createAllow();
    await s.clock.advanceUntil(s.finished, 5_000);
    const reached = s.log.find('target pod reached after policy creation')[0]!;
    // Attempts one after another, 1 s each while dropped: the third, the first to start after the
    // policy took effect, answers 1 ms later, measured from the whole-second creationTimestamp.
    const starts = s.dialer.attempts.map((a) => a.at - t0).slice(-3);
    expect(starts.slice(1).map((at, i) => at - starts[i]!)).toEqual([1_000, 1_000]);
    const expected = (t0 + starts[2]! + 1 - Math.floor(created / 1_000) * 1_000) / 1_000;
    expect(reached).toMatchObject({ startSource: 'creationTimestamp', latencySeconds: expected });
    expect(expected).toBeGreaterThan(0.6); // the truth was 0.3 s: upstream's quantisation and rounding
    expect(await s.registry.metrics()).toMatch(
      new RegExp(`^policy_enforcement_latency_policy_creation_seconds_sum ${expected}$`, 'm'),
    );
    expect(
      await sampleValue(s.registry, 'kpng_test_client_targets_skipped_total', { ...C, reason: 'no-address' }),
    ).toBe(1);
  });

  it('records a negative latency as it is (clock skew), and counts it', async () => {
    const s = setup({ pods: targets(1), probe: UPSTREAM });
    await s.clock.advance(1_000);
    const skewed = policy('allow-egress-to-target', { created: s.clock.now() + 5_000 }); // the API server's clock runs ahead
    s.stored.set('allow-egress-to-target', skewed);
    s.policyStream.emit('added', skewed);
    s.dialer.on('198.18.1.10', 80, { kind: 'answer', reply: 'HTTP/1.1 403 Forbidden' });
    await s.clock.advanceUntil(s.finished, 2_000);
    expect(s.log.find('target pod reached after policy creation')[0]!['recordedSeconds']).toBeLessThan(-3);
    expect(await sampleValue(s.registry, 'policy_enforcement_latency_policy_creation_seconds_sum')).toBeLessThan(-3);
    expect(await sampleValue(s.registry, 'kpng_test_client_negative_latencies_total', C)).toBe(1);
  });
});

describe('PolicyCreationClient: creation', () => {
  it('measures from the allow policy seen on the watch to the first connection, per target', async () => {
    const s = setup({ pods: targets(2) });
    await s.clock.advance(1_000); // denied: refused meanwhile
    const created = s.clock.now();
    s.createAllow();
    s.dialer.answersFrom('198.18.1.10', 80, created + 300).answersFrom('198.18.1.11', 80, created + 700);
    await s.clock.advanceUntil(s.finished, 2_000);
    expect(await sampleValue(s.registry, 'policy_enforcement_latency_policy_creation_seconds_count')).toBe(2);
    const reached = s.log.find('target pod reached after policy creation');
    expect(reached.map((r) => [r['pod'], r['latencySeconds'], r['startSource']])).toEqual([
      ['target-0', 0.301, 'watch'],
      ['target-1', 0.701, 'watch'],
    ]);
    // The API server's whole-second creationTimestamp would have added 600 ms.
    expect(reached[0]).toMatchObject({ latencyFromCreationTimestampSeconds: 0.901 });
    expect(s.gets).toEqual([]);
    expect(await sampleValue(s.registry, 'kpng_test_client_complete', C)).toBe(1);
  });

  it('prefers the millisecond created-at annotation when the creator stamps one', async () => {
    const s = setup({ pods: targets(1) });
    await s.clock.advance(1_000);
    const stamped = s.clock.now() - 40; // the creator's own clock, before the watch delivered it
    s.createAllow(stamped);
    s.dialer.answersFrom('198.18.1.10', 80, s.clock.now() + 100);
    await s.clock.advanceUntil(s.finished, 2_000);
    expect(s.log.find('target pod reached after policy creation')[0]).toMatchObject({
      startSource: 'annotation',
      latencySeconds: 0.141,
    });
  });

  it("without watch permission (clusterloader2's RBAC: get only) it GETs the policy and uses creationTimestamp, like upstream", async () => {
    const s = setup({ pods: targets(1), watchForbidden: true });
    await s.clock.advance(1_000);
    s.createAllow();
    s.dialer.answersFrom('198.18.1.10', 80, s.clock.now() + 200);
    await s.clock.advanceUntil(s.finished, 2_000);
    expect(s.tracker.watchState).toBe('forbidden');
    expect(s.gets).toEqual(['allow-egress-to-target']);
    // creationTimestamp is whole seconds: 600 ms before the real creation here.
    expect(s.log.find('target pod reached after policy creation')[0]).toMatchObject({
      startSource: 'creationTimestamp',
      latencySeconds: 0.801,
    });
  });

  it('a target that answers while no allow policy exists (the deny policy was not in force) gives no sample, and says so', async () => {
    const s = setup({ pods: targets(1) });
    s.dialer.on('198.18.1.10', 80, { kind: 'answer' });
    await s.clock.advanceUntil(s.finished, 1_000);
    expect(await sampleSum(s.registry, 'policy_enforcement_latency_policy_creation_seconds_count')).toBe(0);
    expect(
      await sampleValue(s.registry, 'kpng_test_client_targets_unreached_total', {
        ...C,
        reason: 'reachable-without-allow-policy',
      }),
    ).toBe(1);
  });

  it('takes the first MaxTargets listed pods, waits for pods without an IP, and counts deleted ones', async () => {
    const s = setup({
      pods: [pod('c', { ip: '198.18.1.12' }), pod('a'), pod('b'), pod('d', { ip: '198.18.1.13' })],
      maxTargets: 3,
    });
    await s.clock.advance(100);
    expect(
      await sampleValue(s.registry, 'kpng_test_client_targets_skipped_total', { ...C, reason: 'beyond-max-targets' }),
    ).toBe(1);
    expect(s.dialer.attemptsTo('198.18.1.13')).toBe(0); // d is the fourth by name
    s.pods.emit('deleted', pod('b'));
    s.pods.emit('modified', pod('a', { ip: '198.18.1.10' }));
    s.createAllow();
    s.dialer.on('198.18.1.10', 80, { kind: 'answer' }).on('198.18.1.12', 80, { kind: 'answer' });
    await s.clock.advanceUntil(s.finished, 1_000);
    expect(await sampleValue(s.registry, 'policy_enforcement_latency_policy_creation_seconds_count')).toBe(2);
    expect(await sampleValue(s.registry, 'kpng_test_client_targets_unreached_total', { ...C, reason: 'deleted' })).toBe(
      1,
    );
  });

  it('with no target pods, logs an error and completes with nothing measured', async () => {
    const s = setup({ pods: [] });
    await s.clock.advance(0);
    await s.running;
    expect(s.log.find('no target pods found: nothing to measure')).toHaveLength(1);
  });

  it('counts a target still denied at its deadline as unreached', async () => {
    const s = setup({ pods: targets(1), probe: { targetTimeoutMs: 2_000 } });
    await s.clock.advanceUntil(s.finished, 3_000);
    expect(
      await sampleValue(s.registry, 'kpng_test_client_targets_unreached_total', { ...C, reason: 'deadline' }),
    ).toBe(1);
  });
});

describe('PolicyCreationClient: revocation (policy deletion)', () => {
  it('after the allow policy is deleted, measures until connections fail, from the first failing attempt', async () => {
    const s = setup({ pods: targets(2), measureDeletion: true });
    await s.clock.advance(200);
    const allow = s.createAllow();
    s.dialer.answersFrom('198.18.1.10', 80, s.clock.now() + 50).answersFrom('198.18.1.11', 80, s.clock.now() + 50);
    await s.clock.advance(500);
    expect(await sampleValue(s.registry, 'policy_enforcement_latency_policy_creation_seconds_count')).toBe(2);
    expect(s.finished()).toBe(false);

    await s.clock.advance(1_000);
    const deleted = s.clock.now();
    s.stored.delete('allow-egress-to-target');
    s.policyStream.emit('deleted', allow);
    // Target 0 starts dropping 200 ms later, target 1 rejects 410 ms later.
    s.dialer.on('198.18.1.10', 80, (now) => (now >= deleted + 200 ? { kind: 'drop' } : { kind: 'answer' }));
    s.dialer.on('198.18.1.11', 80, (now) => (now >= deleted + 410 ? { kind: 'refuse' } : { kind: 'answer' }));
    await s.clock.advanceUntil(s.finished, 3_000);

    const revoked = s.log.find('target pod unreachable after revocation');
    expect(revoked.map((r) => [r['pod'], r['latencySeconds'], r['startSource']])).toEqual([
      ['target-1', 0.42, 'watch'],
      ['target-0', 0.2, 'watch'],
    ]);
    expect(await sampleValue(s.registry, 'policy_enforcement_latency_policy_deletion_seconds_count')).toBe(2);
    expect(await sampleValue(s.registry, 'kpng_test_client_complete', D)).toBe(1);
  });

  it('with -DenyPolicyName, revocation is the deny policy being created', async () => {
    const s = setup({ pods: targets(1), measureDeletion: true, denyPolicyName: 'deny-all' });
    await s.clock.advance(100);
    s.createAllow();
    s.dialer.on('198.18.1.10', 80, { kind: 'answer' });
    await s.clock.advance(300);
    const attemptsBefore = s.dialer.attemptsTo('198.18.1.10');
    s.policyStream.emit('deleted', policy('allow-egress-to-target')); // not the revocation in this mode
    await s.clock.advance(300);
    expect(s.dialer.attemptsTo('198.18.1.10')).toBe(attemptsBefore); // nothing probes until revocation
    const denied = s.clock.now();
    s.policyStream.emit('added', policy('deny-all', { created: denied }));
    s.dialer.on('198.18.1.10', 80, (now) => (now >= denied + 100 ? { kind: 'refuse' } : { kind: 'answer' }));
    await s.clock.advanceUntil(s.finished, 2_000);
    expect(s.log.find('target pod unreachable after revocation')[0]).toMatchObject({
      latencySeconds: 0.1,
      startSource: 'watch',
    });
  });

  it('without watch permission, revocation cannot be seen: counted, and the client completes', async () => {
    const s = setup({ pods: targets(1), measureDeletion: true, watchForbidden: true });
    await s.clock.advance(100);
    s.createAllow();
    s.dialer.on('198.18.1.10', 80, { kind: 'answer' });
    await s.clock.advanceUntil(s.finished, 1_000);
    expect(await sampleValue(s.registry, 'policy_enforcement_latency_policy_creation_seconds_count')).toBe(1);
    expect(
      await sampleValue(s.registry, 'kpng_test_client_targets_unreached_total', {
        ...D,
        reason: 'no-watch-permission',
      }),
    ).toBe(1);
  });

  it('shutdown before revocation counts the waiting targets as unreached', async () => {
    const s = setup({ pods: targets(1), measureDeletion: true });
    await s.clock.advance(100);
    s.createAllow();
    s.dialer.on('198.18.1.10', 80, { kind: 'answer' });
    await s.clock.advance(100);
    s.stop.abort();
    await s.clock.advance(0);
    await s.running;
    expect(
      await sampleValue(s.registry, 'kpng_test_client_targets_unreached_total', { ...D, reason: 'shutdown' }),
    ).toBe(1);
    expect(await sampleValue(s.registry, 'policy_enforcement_latency_policy_creation_seconds_count')).toBe(1);
  });
});
