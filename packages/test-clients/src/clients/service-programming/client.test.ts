import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import type { ProbeSettings } from '../../config/common.js';
import type { EndpointSlice, Service } from '../../kube/objects.js';
import { serviceMetrics } from '../../metrics/client-metrics.js';
import { FakeClock } from '../../../test/support/fake-clock.js';
import { FakeDialer } from '../../../test/support/fake-dialer.js';
import { FakeStream } from '../../../test/support/fake-stream.js';
import { MemoryLog } from '../../../test/support/log.js';
import { sampleValue } from '../../../test/support/metrics.js';
import { service, slice } from '../../../test/support/objects.js';
import { ServiceProgrammingClient, type MatchMode } from './client.js';

const PROBE: ProbeSettings = {
  mode: 'precise',
  cadence: 'interval',
  intervalMs: 10,
  attemptTimeoutMs: 500,
  targetTimeoutMs: 5_000,
  ipFamily: undefined,
};
const CLUSTER_IP = '198.19.0.10';
const S = { measurement: 'service_programming' };

function setup(
  options: {
    initial?: EndpointSlice[];
    svc?: Service | undefined;
    match?: MatchMode;
    maxMeasurements?: number;
    nodeIP?: string;
  } = {},
) {
  const clock = new FakeClock(1_700_000_000_000);
  const dialer = new FakeDialer(clock, 1);
  const slices = new FakeStream<EndpointSlice>(clock).list(...(options.initial ?? []));
  const registry = new Registry();
  const log = new MemoryLog();
  let svc = 'svc' in options ? options.svc : service('web', { nodePort: 30080 });
  const client = new ServiceProgrammingClient(
    {
      serviceNamespace: 'default',
      serviceName: 'web',
      servicePort: 0,
      nodeIP: options.nodeIP ?? '',
      match: options.match ?? 'endpoint-name',
      maxMeasurements: options.maxMeasurements ?? 0,
      connectionsPerAttempt: 1,
      probe: PROBE,
      slices,
      getService: async () => svc,
      metrics: serviceMetrics(registry),
    },
    { clock, dialer, logger: log.logger(clock) },
  );
  const stop = new AbortController();
  let finished = false;
  const running = client.run(stop.signal).then(() => (finished = true));
  /** The ClusterIP answers from `from` on; which endpoint answers is up to `pick`. */
  const serve = (host: string, port: number, answer: (now: number) => string | undefined) =>
    dialer.on(host, port, (now) => {
      const who = answer(now);
      return who === undefined ? { kind: 'refuse' } : { kind: 'answer', reply: `${who} 198.18.1.20` };
    });
  return {
    clock,
    dialer,
    slices,
    registry,
    log,
    client,
    stop,
    running,
    serve,
    setService: (s: Service) => (svc = s),
    finished: () => finished,
  };
}

describe('ServiceProgrammingClient', () => {
  it("measures from the slice's trigger time until the NEW endpoint answers through the ClusterIP", async () => {
    const s = setup({ initial: [slice('web-a', 'web', [{ name: 'web-1', ip: '198.18.1.10' }])] });
    await s.clock.advance(100);
    const trigger = s.clock.now() - 80; // the controller stamped it 80 ms before we saw the update
    let programmedAt = Infinity;
    let n = 0;
    s.serve(CLUSTER_IP, 80, (now) => (now >= programmedAt && n++ % 2 === 1 ? 'web-2' : 'web-1'));
    s.slices.emit(
      'modified',
      slice(
        'web-a',
        'web',
        [
          { name: 'web-1', ip: '198.18.1.10' },
          { name: 'web-2', ip: '198.18.1.11' },
        ],
        { triggerTime: trigger },
      ),
    );
    await s.clock.advance(150);
    programmedAt = s.clock.now(); // web-2 is in the rules from now on, answering every other connection
    await s.clock.advanceUntil(() => s.log.find('endpoint answered through the Service').length > 0, 1_000);

    const answered = s.log.find('endpoint answered through the Service')[0]!;
    expect(answered).toMatchObject({
      endpoint: 'web-2',
      path: 'ClusterIP',
      ip: CLUSTER_IP,
      port: 80,
      startSource: 'trigger-time',
      reply: 'web-2 198.18.1.20',
    });
    // Attempts every 10 ms from the event: web-1 answers up to +160 (mismatches), web-2 at +170, 1 ms later.
    expect(answered['latencySeconds']).toBe(0.251);
    expect(answered['latencyFromWatchSeconds']).toBe(0.171);
    // One change, two series: from the trigger time (as kube-proxy) and from this client's watch event.
    expect(
      await sampleValue(s.registry, 'service_programming_latency_seconds_sum', {
        path: 'ClusterIP',
        ip_family: 'IPv4',
        start: 'trigger-time',
      }),
    ).toBeCloseTo(0.251, 6);
    expect(
      await sampleValue(s.registry, 'service_programming_latency_seconds_sum', {
        path: 'ClusterIP',
        ip_family: 'IPv4',
        start: 'watch',
      }),
    ).toBeCloseTo(0.171, 6);
    expect(await sampleValue(s.registry, 'kpng_test_client_latency_seconds_count', S)).toBe(1);
    expect(
      await sampleValue(s.registry, 'kpng_test_client_probe_attempts_total', { ...S, result: 'mismatch' }),
    ).toBeGreaterThan(0);
    expect(s.finished()).toBe(false); // runs until stopped
  });

  it('falls back to the watch event time without a (fresh) trigger time, and probes the NodePort too', async () => {
    const s = setup({ nodeIP: '198.18.255.1' });
    await s.clock.advance(100);
    const seen = s.clock.now();
    s.serve(CLUSTER_IP, 80, (now) => (now >= seen + 30 ? 'web-1' : undefined));
    s.serve('198.18.255.1', 30080, (now) => (now >= seen + 60 ? 'web-1' : undefined));
    s.slices.emit(
      'added',
      slice('web-a', 'web', [{ name: 'web-1', ip: '198.18.1.10' }], { triggerTime: seen - 3_600_000 }),
    );
    await s.clock.advance(200);
    const answered = s.log.find('endpoint answered through the Service');
    expect(answered.map((r) => [r['path'], r['latencySeconds'], r['startSource']])).toEqual([
      ['ClusterIP', 0.031, 'watch'],
      ['NodePort', 0.061, 'watch'],
    ]);
    expect(
      await sampleValue(s.registry, 'service_programming_latency_seconds_count', {
        path: 'NodePort',
        ip_family: 'IPv4',
        start: 'watch',
      }),
    ).toBe(1);
    // No trigger-time sample is made up from the watch time.
    expect(
      await sampleValue(s.registry, 'service_programming_latency_seconds_count', {
        path: 'NodePort',
        ip_family: 'IPv4',
        start: 'trigger-time',
      }),
    ).toBeUndefined();
  });

  it('measures each family against its own cluster IP', async () => {
    const s = setup({ svc: service('web', { clusterIPs: [CLUSTER_IP, '2001:db8:5e::10'] }) });
    await s.clock.advance(100);
    s.serve('2001:db8:5e::10', 80, () => 'web-1');
    s.slices.emit('added', slice('web-v6', 'web', [{ name: 'web-1', ip: '2001:db8:1::10' }], { family: 'IPv6' }));
    await s.clock.advance(50);
    expect(
      await sampleValue(s.registry, 'service_programming_latency_seconds_count', {
        path: 'ClusterIP',
        ip_family: 'IPv6',
        start: 'watch',
      }),
    ).toBe(1);
    expect(s.dialer.attemptsTo(CLUSTER_IP)).toBe(0);
  });

  it('connect mode measures only a Service going from no endpoints to some', async () => {
    const s = setup({ match: 'connect' });
    await s.clock.advance(100);
    const seen = s.clock.now();
    s.dialer.on(CLUSTER_IP, 80, (now) => (now >= seen + 45 ? { kind: 'answer' } : { kind: 'refuse' }));
    s.slices.emit('added', slice('web-a', 'web', [{ name: 'web-1', ip: '198.18.1.10' }]));
    await s.clock.advance(100);
    s.slices.emit(
      'modified',
      slice('web-a', 'web', [
        { name: 'web-1', ip: '198.18.1.10' },
        { name: 'web-2', ip: '198.18.1.11' },
      ]),
    );
    await s.clock.advance(100);
    expect(
      await sampleValue(s.registry, 'service_programming_latency_seconds_count', {
        path: 'ClusterIP',
        ip_family: 'IPv4',
        start: 'watch',
      }),
    ).toBe(1);
    expect(s.log.find('endpoint answered through the Service')[0]).toMatchObject({
      endpoint: '*',
      latencySeconds: 0.051,
    });
  });

  it('stops waiting for an endpoint that is removed, and counts it', async () => {
    const s = setup();
    await s.clock.advance(100);
    s.serve(CLUSTER_IP, 80, () => undefined);
    s.slices.emit('added', slice('web-a', 'web', [{ name: 'web-1', ip: '198.18.1.10' }]));
    await s.clock.advance(100);
    s.slices.emit('modified', slice('web-a', 'web', []));
    await s.clock.advance(10);
    expect(await sampleValue(s.registry, 'kpng_test_client_targets_unreached_total', { ...S, reason: 'removed' })).toBe(
      1,
    );
    expect(await sampleValue(s.registry, 'kpng_test_client_targets_in_flight', S)).toBe(0);
  });

  it('an endpoint never answering by the deadline is unreached; endpoints without a name are skipped', async () => {
    const s = setup();
    await s.clock.advance(100);
    s.serve(CLUSTER_IP, 80, () => 'web-1');
    const unnamed = slice('web-b', 'web', [{ name: 'x', ip: '198.18.1.30' }]);
    s.slices.emit('added', { ...unnamed, endpoints: [{ addresses: ['198.18.1.30'] }] });
    s.slices.emit('added', slice('web-a', 'web', [{ name: 'web-9', ip: '198.18.1.19' }]));
    await s.clock.advance(5_100);
    expect(
      await sampleValue(s.registry, 'kpng_test_client_targets_skipped_total', {
        ...S,
        reason: 'endpoint-without-name',
      }),
    ).toBe(1);
    expect(
      await sampleValue(s.registry, 'kpng_test_client_targets_unreached_total', { ...S, reason: 'deadline' }),
    ).toBe(1);
  });

  it('completes after MaxMeasurements samples', async () => {
    const s = setup({ maxMeasurements: 1 });
    await s.clock.advance(100);
    s.serve(CLUSTER_IP, 80, () => 'web-1');
    s.slices.emit('added', slice('web-a', 'web', [{ name: 'web-1', ip: '198.18.1.10' }]));
    await s.clock.advanceUntil(s.finished, 1_000);
    expect(s.slices.running).toBe(false);
  });

  it('waits for the Service to exist, then explains when it cannot be probed', async () => {
    const s = setup({ svc: undefined });
    await s.clock.advance(2_000);
    expect(s.log.find('Service not found; retrying').length).toBeGreaterThan(1);
    s.setService(service('web', { clusterIPs: ['None'] }));
    await s.clock.advanceUntil(s.finished, 10_000);
    expect(s.log.find('nothing to probe')[0]?.['reason']).toMatch(/headless/);
  });
});
