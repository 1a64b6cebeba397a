import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ServiceKey } from '../../model/types.js';
import { RecordingLogger } from '../../sync/recording-logger.js';
import { watchHub } from './client.js';
import type { WatchInfo } from './consume.js';
import { StateHub } from '../hub.js';
import { changed, everything, gate } from '../testdata/harness.js';

const logger = new RecordingLogger();
let stop: AbortController;
beforeEach(() => void (stop = new AbortController()));
afterEach(() => stop.abort());

describe('watchHub (in-process consumer)', () => {
  it('asks for the next state only after the handler resolved, skipping what it missed', async () => {
    const hub = new StateHub<string>();
    hub.publish('s1', everything);
    const seen: [string, WatchInfo][] = [];
    const release = gate();
    void watchHub(
      hub,
      async (s, info) => {
        seen.push([s, info]);
        if (seen.length === 1) await release.promise;
      },
      { signal: stop.signal, logger },
    );
    await vi.waitFor(() => expect(seen).toHaveLength(1));
    hub.publish('s2', changed('a/x'));
    hub.publish('s3', changed('a/y'));
    release.open();
    await vi.waitFor(() => expect(seen).toHaveLength(2));
    expect(seen.map(([s]) => s)).toEqual(['s1', 's3']);
    expect([...seen[1]![1].changes.updatedServices!].sort()).toEqual(['a/x', 'a/y']);
  });

  it('retries a failed handler with the changes accumulated since the last success', async () => {
    const hub = new StateHub<string>();
    hub.publish('s1', everything);
    const calls: [string, WatchInfo][] = [];
    void watchHub(
      hub,
      (s, info) => {
        calls.push([s, info]);
        if (s === 's2') {
          hub.publish('s3', changed('a/y')); // arrives while the failed sync backs off
          throw new Error('apply failed');
        }
      },
      { signal: stop.signal, logger, backoff: { initialMs: 1, maxMs: 5 } },
    );
    await vi.waitFor(() => expect(calls).toHaveLength(1));
    hub.publish('s2', changed('a/x'));
    await vi.waitFor(() => expect(calls).toHaveLength(3));
    expect(calls.map(([s]) => s)).toEqual(['s1', 's2', 's3']);
    expect(calls[2]![1].full).toBe(false);
    expect([...calls[2]![1].changes.updatedServices!].sort()).toEqual(['a/x', 'a/y']);
    expect(logger.records.some((r) => r.msg.startsWith('state handler failed'))).toBe(true);
  });

  it('drops trigger times that predate the consumer', async () => {
    const hub = new StateHub<string>();
    const svc = 'a/x' as ServiceKey;
    hub.publish('s1', { ...everything, triggerTimes: new Map([[svc, [500, 1500]]]) });
    let info: WatchInfo | undefined;
    void watchHub(hub, (_s, i) => void (info = i), { signal: stop.signal, logger, since: 1000 });
    await vi.waitFor(() => expect(info).toBeDefined());
    expect(info!.changes.triggerTimes.get(svc)).toEqual([1500]);
  });

  it('returns when the hub closes', async () => {
    const hub = new StateHub<string>();
    const done = watchHub(hub, () => {}, { logger });
    hub.close();
    await expect(done).resolves.toBeUndefined();
  });
});
