import { Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { TrackingMetrics } from '../metrics/tracking.js';
import { sampleSum, sampleValue } from '../../test/support/metrics.js';
import { TargetBook } from './target-book.js';

function setup(maxTargets?: number) {
  const registry = new Registry();
  const tracking = new TrackingMetrics(registry);
  tracking.init('pod_creation_reachability');
  const histogram = new Histogram({ name: 'upstream_seconds', help: 'h', buckets: [0.1, 1], registers: [registry] });
  const book = new TargetBook({
    measurement: 'pod_creation_reachability',
    tracking,
    observe: (s) => histogram.observe(s),
    ...(maxTargets !== undefined ? { maxTargets } : {}),
  });
  const m = { measurement: 'pod_creation_reachability' };
  return { registry, book, m };
}

describe('TargetBook', () => {
  it('measures each target once: a second claim is a duplicate', async () => {
    const { registry, book, m } = setup();
    expect(book.claim('a')).toBe('claimed');
    expect(book.claim('a')).toBe('duplicate');
    expect(await sampleValue(registry, 'kpng_test_client_targets_in_flight', m)).toBe(1);
    expect(book.reached('a', 250)).toEqual({ seconds: 0.25, negative: false });
    expect(book.claim('a')).toBe('duplicate');
    expect(() => book.reached('a', 10)).toThrow(/not being measured/);
    expect(await sampleValue(registry, 'upstream_seconds_count')).toBe(1);
    expect(await sampleValue(registry, 'upstream_seconds_sum')).toBe(0.25);
    expect(await sampleValue(registry, 'kpng_test_client_latency_seconds_count', m)).toBe(1);
    expect(await sampleValue(registry, 'kpng_test_client_targets_in_flight', m)).toBe(0);
  });

  it('measures exactly maxTargets targets and counts the next ones as skipped', async () => {
    const { registry, book, m } = setup(2);
    expect(['a', 'b', 'c', 'd'].map((k) => book.claim(k))).toEqual(['claimed', 'claimed', 'full', 'full']);
    expect(
      await sampleValue(registry, 'kpng_test_client_targets_skipped_total', { ...m, reason: 'beyond-max-targets' }),
    ).toBe(2);
    expect(book.complete).toBe(false);
    book.reached('a', 1);
    book.unreached('b', 'deadline');
    expect(book.complete).toBe(true);
    await book.done;
    expect(await sampleValue(registry, 'kpng_test_client_complete', m)).toBe(1);
  });

  it('counts targets never reached by reason, with no histogram sample', async () => {
    const { registry, book, m } = setup();
    book.claim('a');
    book.claim('b');
    book.claim('c');
    book.unreached('a', 'deadline');
    book.unreached('b', 'deleted');
    book.abandonAll('shutdown');
    expect(await sampleValue(registry, 'kpng_test_client_targets_unreached_total', { ...m, reason: 'deadline' })).toBe(
      1,
    );
    expect(await sampleValue(registry, 'kpng_test_client_targets_unreached_total', { ...m, reason: 'deleted' })).toBe(
      1,
    );
    expect(await sampleValue(registry, 'kpng_test_client_targets_unreached_total', { ...m, reason: 'shutdown' })).toBe(
      1,
    );
    expect(await sampleSum(registry, 'upstream_seconds_count')).toBe(0);
    expect(book.complete).toBe(true);
  });

  it('records a negative latency (clock skew) as 0 and counts it', async () => {
    const { registry, book, m } = setup();
    book.claim('a');
    expect(book.reached('a', -300)).toEqual({ seconds: 0, negative: true });
    expect(await sampleValue(registry, 'kpng_test_client_negative_latencies_total', m)).toBe(1);
    expect(await sampleValue(registry, 'upstream_seconds_bucket', { le: '0.1' })).toBe(1);
  });

  it('a per-claim observer overrides the default one', async () => {
    const { registry, book } = setup();
    const seen: number[] = [];
    book.claim('a', (s) => seen.push(s));
    book.reached('a', 1_500);
    expect(seen).toEqual([1.5]);
    expect(await sampleSum(registry, 'upstream_seconds_count')).toBe(0);
  });

  it('is complete once closed with nothing open; closed books refuse claims', () => {
    const { book } = setup();
    book.claim('a');
    book.close();
    expect(book.claim('b')).toBe('closed');
    expect(book.complete).toBe(false);
    book.reached('a', 5);
    expect(book.complete).toBe(true);
  });
});
