import { describe, expect, it } from 'vitest';
import type { IPFamily } from '../model/types.js';
import { FakeClock } from '../util/fake-clock.js';
import { ProxyHealth, type HealthCounters } from './proxy-health.js';

const SYNC_PERIOD = 30_000;

class CountingHealthCounters implements HealthCounters {
  readonly healthz: number[] = [];
  readonly livez: number[] = [];
  healthzAnswered(code: number): void {
    this.healthz.push(code);
  }
  livezAnswered(code: number): void {
    this.livez.push(code);
  }
}

type Step =
  | { readonly op: 'queued'; readonly family: IPFamily }
  | { readonly op: 'updated'; readonly family: IPFamily }
  | { readonly op: 'wait'; readonly ms: number };

/** As the runtime leaves it once running: both families synced at start, the Node known and eligible. */
function setup(startUp = true) {
  const clock = new FakeClock();
  const counters = new CountingHealthCounters();
  const health = new ProxyHealth({ clock, syncPeriodMs: SYNC_PERIOD, metrics: counters });
  if (startUp) {
    health.updated('IPv4');
    health.updated('IPv6');
    health.nodeEligible = true;
  }
  const play = (steps: readonly Step[]) => {
    for (const s of steps) {
      if (s.op === 'queued') health.queuedUpdate(s.family);
      else if (s.op === 'updated') health.updated(s.family);
      else clock.advance(s.ms);
    }
  };
  return { clock, counters, health, play };
}

describe('ProxyHealth freshness', () => {
  it.each<{ name: string; steps: Step[]; healthy: boolean }>([
    { name: 'healthy at start-up', steps: [], healthy: true },
    {
      name: 'healthy while an update waits less than 2 x syncPeriod',
      steps: [
        { op: 'queued', family: 'IPv4' },
        { op: 'wait', ms: 59_999 },
      ],
      healthy: true,
    },
    {
      name: 'unhealthy once an update has waited 2 x syncPeriod',
      steps: [
        { op: 'queued', family: 'IPv4' },
        { op: 'wait', ms: 60_000 },
      ],
      healthy: false,
    },
    {
      name: 'only the oldest pending update counts',
      steps: [
        { op: 'queued', family: 'IPv4' },
        { op: 'wait', ms: 50_000 },
        { op: 'queued', family: 'IPv4' },
        { op: 'wait', ms: 10_000 },
      ],
      healthy: false,
    },
    {
      name: 'a successful sync clears the pending update',
      steps: [
        { op: 'queued', family: 'IPv4' },
        { op: 'wait', ms: 50_000 },
        { op: 'updated', family: 'IPv4' },
        { op: 'wait', ms: 600_000 },
      ],
      healthy: true,
    },
    {
      name: 'every family must be fresh',
      steps: [
        { op: 'queued', family: 'IPv4' },
        { op: 'queued', family: 'IPv6' },
        { op: 'wait', ms: 50_000 },
        { op: 'updated', family: 'IPv4' },
        { op: 'wait', ms: 10_000 },
      ],
      healthy: false,
    },
    {
      name: 'a sync of one family does not clear another',
      steps: [
        { op: 'queued', family: 'IPv6' },
        { op: 'updated', family: 'IPv4' },
        { op: 'wait', ms: 60_000 },
      ],
      healthy: false,
    },
  ])('$name', ({ steps, healthy }) => {
    const { health, play } = setup();
    play(steps);
    expect(health.isHealthy()).toBe(healthy);
    expect(health.livez().status).toBe(healthy ? 200 : 503);
    expect(health.healthz().status).toBe(healthy ? 200 : 503);
  });

  it('ignores wall-clock steps: ages are monotonic', () => {
    const { clock, health } = setup();
    health.queuedUpdate('IPv4');
    clock.setWallClock(clock.now() + 3_600_000);
    expect(health.isHealthy()).toBe(true);
  });
});

describe('ProxyHealth replies', () => {
  it('healthz ANDs node eligibility; livez ignores it and omits the field', () => {
    const { health, counters } = setup();
    health.nodeEligible = false;
    expect(health.healthz().status).toBe(503);
    expect(JSON.parse(health.healthz().body)).toMatchObject({ nodeEligible: false });
    const livez = health.livez();
    expect(livez.status).toBe(200);
    expect(Object.keys(JSON.parse(livez.body)).sort()).toEqual(['currentTime', 'healthy', 'lastUpdated', 'status']);
    expect(counters.healthz).toEqual([503, 503]);
    expect(counters.livez).toEqual([200]);
  });

  it('reports lastUpdated as now when healthy, with healthy and per-family status as current upstream', () => {
    const { clock, health } = setup();
    clock.advance(10_500);
    const now = '2025-01-01T00:00:10.5Z';
    const started = '2025-01-01T00:00:00Z';
    const status = { IPv4: { lastUpdated: started, healthy: true }, IPv6: { lastUpdated: started, healthy: true } };
    expect(health.healthz().body).toBe(
      JSON.stringify({ lastUpdated: now, currentTime: now, nodeEligible: true, healthy: true, status }),
    );
    expect(health.livez().body).toBe(JSON.stringify({ lastUpdated: now, currentTime: now, healthy: true, status }));
  });

  it('reports the real lastUpdated when unhealthy, and which family is late', () => {
    const { clock, health } = setup();
    clock.advance(1_000);
    health.updated('IPv4');
    health.queuedUpdate('IPv6');
    clock.advance(60_000);
    expect(JSON.parse(health.livez().body)).toEqual({
      lastUpdated: '2025-01-01T00:00:01Z',
      currentTime: '2025-01-01T00:01:01Z',
      healthy: false,
      status: {
        IPv4: { lastUpdated: '2025-01-01T00:00:01Z', healthy: true },
        IPv6: { lastUpdated: '2025-01-01T00:00:00Z', healthy: false },
      },
    });
  });

  it("is not eligible while the Node is unknown, and reports Go's zero time and no status before any sync", () => {
    const { health } = setup(false);
    const reply = health.healthz();
    expect(reply.status).toBe(503);
    expect(JSON.parse(reply.body)).toEqual({
      lastUpdated: '0001-01-01T00:00:00Z',
      currentTime: '2025-01-01T00:00:00Z',
      nodeEligible: false,
      healthy: true,
    });
  });

  it('ignores a family that never synced, as upstream (only families with a lastUpdated count)', () => {
    const { clock, health } = setup(false);
    health.updated('IPv4');
    health.queuedUpdate('IPv6');
    clock.advance(120_000);
    expect(health.isHealthy()).toBe(true);
  });
});
