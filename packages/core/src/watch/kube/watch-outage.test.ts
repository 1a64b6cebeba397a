import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { registerKubeWatchMetrics } from '../../metrics/kube-watch.js';
import { RecordingLogger } from '../../sync/recording-logger.js';
import { FakeClock } from '../../util/fake-clock.js';
import { WatchOutage } from './watch-outage.js';

function setup() {
  const clock = new FakeClock();
  const logger = new RecordingLogger();
  const registry = new Registry();
  const outage = new WatchOutage('EndpointSlice', clock, logger, registerKubeWatchMetrics(registry));
  const metric = async (name: string) =>
    Number(new RegExp(`^${name}\\{kind="EndpointSlice"\\} (\\S+)$`, 'm').exec(await registry.metrics())?.[1]);
  return { clock, logger, outage, metric };
}

describe('WatchOutage', () => {
  it('logs how long the watch was gone and how many attempts failed, and counts the reconnect', async () => {
    const { clock, logger, outage, metric } = setup();
    clock.advance(300); // initial list
    outage.opened();
    clock.advance(60_000);
    outage.closed(); // the API server went away
    clock.advance(400);
    expect(outage.failed()).toBe(1);
    clock.advance(20_000);
    expect(outage.failed()).toBe(2);
    expect(await metric('kpng_kube_watch_down_seconds')).toBe(20.4);
    clock.advance(600);
    outage.opened();

    expect(logger.at('info')).toEqual([
      { level: 'info', msg: 'watch is back', fields: { kind: 'EndpointSlice', downMs: 21_000, failedAttempts: 2 } },
    ]);
    expect(await metric('kpng_kube_watch_reconnects_total')).toBe(1);
    expect(await metric('kpng_kube_watch_outage_seconds_sum')).toBe(21);
    expect(await metric('kpng_kube_watch_down_seconds')).toBe(0);
  });

  it('counts a routine re-watch quietly, and a slow one loudly', async () => {
    const { clock, logger, outage, metric } = setup();
    outage.opened();
    outage.closed(); // the server ended the watch at its timeout; client-node re-watches at once
    clock.advance(5);
    outage.opened();
    expect(logger.at('info')).toEqual([]);
    expect(logger.at('debug').map((r) => r.msg)).toEqual(['watch reopened']);

    outage.closed(); // 410 Gone: a relist of a large collection
    clock.advance(1_500);
    outage.opened();
    expect(logger.at('info').map((r) => r.fields['downMs'])).toEqual([1_500]);
    expect(await metric('kpng_kube_watch_reconnects_total')).toBe(2);
  });

  it('does not count the first watch, whose wait is the initial list, as a reconnect', async () => {
    const { clock, logger, outage, metric } = setup();
    clock.advance(2_000);
    expect(await metric('kpng_kube_watch_down_seconds')).toBe(2);
    outage.opened();
    expect(logger.records).toEqual([]);
    expect(await metric('kpng_kube_watch_reconnects_total')).toBeNaN();
  });

  it('stops reporting once disposed', async () => {
    const { outage, metric } = setup();
    outage.dispose();
    expect(await metric('kpng_kube_watch_down_seconds')).toBeNaN();
  });
});
