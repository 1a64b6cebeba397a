import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import type { ProbeSettings, TargetSettings } from '../../config/common.js';
import type { Pod } from '../../kube/objects.js';
import { podCreationMetrics } from '../../metrics/client-metrics.js';
import { FakeClock } from '../../../test/support/fake-clock.js';
import { FakeDialer } from '../../../test/support/fake-dialer.js';
import { FakeStream } from '../../../test/support/fake-stream.js';
import { MemoryLog } from '../../../test/support/log.js';
import { sampleSum, sampleValue } from '../../../test/support/metrics.js';
import { pod } from '../../../test/support/objects.js';
import { PodCreationClient } from './client.js';

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
  intervalMs: 50,
  attemptTimeoutMs: 1_000,
  targetTimeoutMs: 10_000,
  ipFamily: undefined,
};
const R = { measurement: 'pod_creation_reachability' };

function setup(targets: Partial<TargetSettings> = {}, probe: Partial<ProbeSettings> = {}) {
  const clock = new FakeClock(1_700_000_000_250);
  const dialer = new FakeDialer(clock, 2);
  const pods = new FakeStream<Pod>(clock);
  const registry = new Registry();
  const log = new MemoryLog();
  const client = new PodCreationClient(
    {
      targets: { ...TARGETS, ...targets },
      probe: { ...PROBE, ...probe },
      pods,
      metrics: podCreationMetrics(registry, probe.mode ?? PROBE.mode),
    },
    { clock, dialer, logger: log.logger(clock) },
  );
  const stop = new AbortController();
  let finished = false;
  const running = client.run(stop.signal).then(() => (finished = true));
  return { clock, dialer, pods, registry, log, client, stop, running, finished: () => finished };
}

describe('PodCreationClient', () => {
  it('measures IP assignment from creationTimestamp and reachability from the watch event that showed the IP', async () => {
    const { clock, dialer, pods, registry, log } = setup();
    const t0 = clock.now();
    await clock.advance(0);
    pods.emit('added', pod('web-1', { created: t0 }));
    await clock.advance(1_200);
    const ipSeen = clock.now();
    dialer.answersFrom('198.18.1.10', 80, ipSeen + 430);
    pods.emit('modified', pod('web-1', { created: t0, ip: '198.18.1.10' }));
    await clock.advanceUntil(() => log.find('target pod reached').length > 0, 2_000);

    // creationTimestamp has whole seconds (t0 rounded down: 250 ms earlier).
    expect(await sampleValue(registry, 'pod_ip_address_assigned_latency_seconds_sum')).toBeCloseTo(1.45, 6);
    // Attempts every 50 ms from the event: the one at +450 connects 2 ms later.
    expect(await sampleValue(registry, 'pod_creation_reachability_latency_seconds_sum')).toBeCloseTo(0.452, 6);
    expect(log.find('target pod reached')[0]).toMatchObject({
      pod: 'web-1',
      ip: '198.18.1.10',
      port: 80,
      latencySeconds: 0.452,
      attempts: 10,
    });
    expect(await sampleValue(registry, 'kpng_test_client_probe_attempts_total', { ...R, result: 'refused' })).toBe(9);
    expect(await sampleValue(registry, 'kpng_test_client_probe_attempts_total', { ...R, result: 'success' })).toBe(1);
  });

  it('skips pods that already had an IP in the initial list, but measures listed pods still waiting for one', async () => {
    const clock = new FakeClock();
    const { pods, registry, dialer } = setupWithInitial(clock, [
      pod('old', { ip: '198.18.1.10', created: clock.now() }),
      pod('pending', { created: clock.now() }),
    ]);
    await clock.advance(100);
    dialer.on('198.18.1.11', 80, { kind: 'answer' });
    pods.emit('modified', pod('pending', { ip: '198.18.1.11', created: clock.now() }));
    await clock.advance(10);
    expect(
      await sampleValue(registry, 'kpng_test_client_targets_skipped_total', { ...R, reason: 'pre-existing' }),
    ).toBe(1);
    expect(await sampleValue(registry, 'pod_creation_reachability_latency_seconds_count')).toBe(1);
    expect(dialer.attemptsTo('198.18.1.10')).toBe(0);
  });

  it('measures exactly MaxTargets pods, counts the rest as skipped, then stops watching and completes', async () => {
    const { clock, dialer, pods, registry, finished } = setup({ maxTargets: 2 });
    await clock.advance(0);
    dialer.on('198.18.1.10', 80, { kind: 'drop' });
    for (const [i, name] of ['a', 'b', 'c'].entries()) {
      if (i > 0) dialer.on(`198.18.1.${10 + i}`, 80, { kind: 'answer' });
      pods.emit('added', pod(name, { ip: `198.18.1.${10 + i}`, created: clock.now() }));
    }
    pods.emit(
      'modified',
      pod('c', { ip: '198.18.1.12', created: clock.now(), labels: { target: 'test-policy', more: 'x' } }),
    );
    await clock.advance(10);
    expect(finished()).toBe(false); // a is still being probed
    dialer.on('198.18.1.10', 80, { kind: 'answer' });
    await clock.advance(1_000);
    await clock.advance(10);
    expect(finished()).toBe(true);
    expect(pods.running).toBe(false);
    expect(await sampleValue(registry, 'pod_creation_reachability_latency_seconds_count')).toBe(2);
    expect(
      await sampleValue(registry, 'kpng_test_client_targets_skipped_total', { ...R, reason: 'beyond-max-targets' }),
    ).toBe(1);
    expect(await sampleValue(registry, 'kpng_test_client_complete', R)).toBe(1);
    expect(dialer.attemptsTo('198.18.1.12')).toBe(0);
  });

  it('counts a pod never reached by its deadline, and one deleted while probed, as unreached', async () => {
    const { clock, pods, registry, log } = setup({}, { targetTimeoutMs: 3_000 });
    await clock.advance(0);
    pods.emit('added', pod('never', { ip: '198.18.1.10', created: clock.now() }));
    pods.emit('added', pod('gone', { ip: '198.18.1.11', created: clock.now() }));
    await clock.advance(500);
    pods.emit('deleted', pod('gone', { ip: '198.18.1.11', created: clock.now() }));
    await clock.advance(2_600);
    expect(await sampleValue(registry, 'kpng_test_client_targets_unreached_total', { ...R, reason: 'deadline' })).toBe(
      1,
    );
    expect(await sampleValue(registry, 'kpng_test_client_targets_unreached_total', { ...R, reason: 'deleted' })).toBe(
      1,
    );
    expect(await sampleSum(registry, 'pod_creation_reachability_latency_seconds_count')).toBe(0);
    expect(await sampleValue(registry, 'kpng_test_client_targets_in_flight', R)).toBe(0);
    expect(
      log.find('target pod never reached', { pod: 'never', reason: 'deadline', lastResult: 'refused' }),
    ).toHaveLength(1);
  });

  it('probes the IPv6 address when asked, and skips pods without one', async () => {
    const { clock, dialer, pods, registry } = setup({}, { ipFamily: 'IPv6' });
    await clock.advance(0);
    dialer.on('2001:db8:1::10', 80, { kind: 'answer' });
    pods.emit('added', pod('dual', { ips: ['198.18.1.10', '2001:db8:1::10'], created: clock.now() }));
    pods.emit('added', pod('v4only', { ip: '198.18.1.11', created: clock.now() }));
    await clock.advance(10);
    expect(await sampleValue(registry, 'pod_creation_reachability_latency_seconds_count')).toBe(1);
    expect(dialer.attemptsTo('198.18.1.10')).toBe(0);
    expect(
      await sampleValue(registry, 'kpng_test_client_targets_skipped_total', { ...R, reason: 'no-address-in-family' }),
    ).toBe(1);
  });

  it('on shutdown, stops probing and counts what was in flight', async () => {
    const { clock, pods, registry, stop, running, finished } = setup();
    await clock.advance(0);
    pods.emit('added', pod('web-1', { ip: '198.18.1.10', created: clock.now() }));
    await clock.advance(300);
    stop.abort();
    await clock.advance(0);
    await running;
    expect(finished()).toBe(true);
    expect(await sampleValue(registry, 'kpng_test_client_targets_unreached_total', { ...R, reason: 'shutdown' })).toBe(
      1,
    );
    expect(clock.pendingTimers).toBe(0);
  });
});

describe('PodCreationClient, upstream mode', () => {
  const UPSTREAM: Partial<ProbeSettings> = {
    mode: 'upstream',
    cadence: 'sequential',
    intervalMs: 10,
    targetTimeoutMs: 0,
  };

  it('probes curl-like (one attempt after another, an HTTP reply), and measures pods of the initial list too', async () => {
    const clock = new FakeClock(1_700_000_000_250);
    const dialer = new FakeDialer(clock, 2);
    const pods = new FakeStream<Pod>(clock).list(pod('old', { ip: '198.18.1.10', created: clock.now() - 60_000 }));
    const registry = new Registry();
    const log = new MemoryLog();
    const client = new PodCreationClient(
      { targets: TARGETS, probe: { ...PROBE, ...UPSTREAM }, pods, metrics: podCreationMetrics(registry, 'upstream') },
      { clock, dialer, logger: log.logger(clock) },
    );
    void client.run(new AbortController().signal);
    const t0 = clock.now();
    // A TCP server that is not HTTP does not count (curl fails on it); the HTTP one from +95 ms does.
    dialer.on('198.18.1.10', 80, (now) => ({ kind: 'answer', reply: now >= t0 + 95 ? 'HTTP/1.1 200 OK' : 'not-http' }));
    await clock.advanceUntil(() => log.find('target pod reached').length > 0, 2_000);
    expect(log.find('target pod reached')[0]).toMatchObject({ pod: 'old', latencySeconds: 0.102 });
    expect(dialer.attempts.map((a) => a.at - t0)).toEqual([0, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100]);
    expect(dialer.attempts[0]?.send).toMatch(/^GET \/ HTTP\/1\.1\r\n/);
    // Plain, unlabelled upstream series.
    const text = await registry.metrics();
    expect(text).toMatch(/^pod_creation_reachability_latency_seconds_count 1$/m);
    expect(text).toMatch(/^pod_ip_address_assigned_latency_seconds_count 1$/m);
    expect(
      await sampleValue(registry, 'kpng_test_client_latency_seconds_count', { ...R, mode: 'upstream', start: 'watch' }),
    ).toBe(1);
    expect(await sampleSum(registry, 'kpng_test_client_targets_skipped_total', { reason: 'pre-existing' })).toBe(0);
  });

  it('has no per-target deadline by default: a target is probed until it answers', async () => {
    const { clock, dialer, pods, log } = setup({}, { ...UPSTREAM, attemptTimeoutMs: 1_000 });
    await clock.advance(0);
    const seen = clock.now();
    dialer.on('198.18.1.10', 80, (now) =>
      now >= seen + 3_600_000 ? { kind: 'answer', reply: 'HTTP/1.1 200 OK' } : { kind: 'drop' },
    );
    pods.emit('added', pod('slow', { ip: '198.18.1.10', created: seen }));
    await clock.advanceUntil(() => log.find('target pod reached').length > 0, 3_700_000, 1_000);
    // Dropped attempts time out after 1 s, one after another: upstream's quantisation.
    expect(log.find('target pod reached')[0]).toMatchObject({ latencySeconds: 3_600.002, attempts: 3_601 });
  });
});

function setupWithInitial(clock: FakeClock, initial: Pod[]) {
  const dialer = new FakeDialer(clock, 2);
  const pods = new FakeStream<Pod>(clock).list(...initial);
  const registry = new Registry();
  const client = new PodCreationClient(
    { targets: TARGETS, probe: PROBE, pods, metrics: podCreationMetrics(registry, 'precise') },
    { clock, dialer, logger: new MemoryLog().logger(clock) },
  );
  void client.run(new AbortController().signal);
  return { pods, registry, dialer };
}
