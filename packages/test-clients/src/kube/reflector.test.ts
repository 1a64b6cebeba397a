import { FakeApiServer, kubeconfigFor, type LabKubeconfig } from '@kpng/lab';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { eventually } from '../../test/support/eventually.js';
import { pod } from '../../test/support/objects.js';
import { systemClock } from '../util/clock.js';
import { loadKubeConfig } from './kubeconfig.js';
import type { Pod } from './objects.js';
import { Reflector } from './reflector.js';
import type { ObjectEvent } from './stream.js';

// API e2e: the reflector against the lab's fake API server (real HTTP list/watch).
describe('Reflector on the fake API server', () => {
  let server: FakeApiServer;
  let kubeconfig: LabKubeconfig;
  let stop: AbortController;
  let events: ObjectEvent<Pod>[];
  let synced: boolean;
  let running: Promise<void>;

  const start = () => {
    const reflector = new Reflector<Pod>({
      kind: 'Pod',
      kubeConfig: loadKubeConfig(kubeconfig.path),
      path: '/api/v1/namespaces/test-policy/pods',
      labelSelector: 'target=test-policy',
      backoff: { initialMs: 10, maxMs: 50 },
    });
    running = reflector.run({ event: (e) => events.push(e), synced: () => (synced = true) }, stop.signal);
  };
  const seen = () => events.map((e) => `${e.type} ${e.object.metadata?.name}${e.initial ? ' (initial)' : ''}`);

  beforeEach(async () => {
    server = await FakeApiServer.start();
    kubeconfig = await kubeconfigFor(server);
    stop = new AbortController();
    events = [];
    synced = false;
  });
  afterEach(async () => {
    stop.abort();
    await running?.catch(() => undefined);
    await kubeconfig.remove();
    await server.close();
  });

  it('lists (initial), then watches live changes stamped with their arrival time', async () => {
    server.create(pod('old', { ip: '198.18.1.10' }));
    server.create(pod('other', { labels: { target: 'else' } }));
    start();
    await eventually('initial list', () => synced);
    expect(seen()).toEqual(['added old (initial)']);
    await eventually('watch open', () => server.openWatches('pods') === 1);

    const before = systemClock.now();
    server.create(pod('new'));
    server.update(pod('new', { ip: '198.18.1.11' }));
    server.delete(pod('old'));
    await eventually('three live events', () => events.length === 4);
    const after = systemClock.now();
    expect(seen()).toEqual(['added old (initial)', 'added new', 'modified new', 'deleted old']);
    expect(events[2]!.object.status?.podIP).toBe('198.18.1.11');
    for (const e of events.slice(1)) {
      expect(e.receivedAt).toBeGreaterThanOrEqual(before);
      expect(e.receivedAt).toBeLessThanOrEqual(after);
    }
    // Millisecond precision or better: not whole seconds like creationTimestamp.
    expect(events.slice(1).some((e) => e.receivedAt % 1_000 !== 0)).toBe(true);
  });

  it('relists after 410 Gone, reporting what changed meanwhile, and resumes after dropped connections', async () => {
    server.create(pod('a'));
    server.create(pod('b'));
    start();
    await eventually('watch open', () => synced && server.openWatches('pods') === 1);
    server.dropConnections();
    server.create(pod('c'));
    await eventually('event after a dropped connection', () => seen().includes('added c'));

    await eventually('watch reopened', () => server.openWatches('pods') === 1);
    server.compact({ expireOpenWatches: false });
    server.delete(pod('a'));
    server.update(pod('b', { ip: '198.18.1.12' }));
    server.compact();
    await eventually('relist after 410', () => seen().includes('deleted a') && seen().includes('modified b'));
    expect(events.filter((e) => e.initial)).toHaveLength(2);
  });

  it('gives up on 403 Forbidden (missing RBAC) instead of retrying forever', async () => {
    server.failNext('/api/v1/namespaces/test-policy/pods', 403);
    start();
    await expect(running).rejects.toMatchObject({ statusCode: 403 });
  });
});
