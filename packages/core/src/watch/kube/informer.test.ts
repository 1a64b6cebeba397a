import type { KubernetesObject } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import type { ModelEvent, NodeName, ObjectKind } from '../../model/types.js';
import { RecordingLogger } from '../../sync/recording-logger.js';
import { systemClock } from '../../util/clock.js';
import type { Scheduler } from '../../util/next-turn.js';
import { patched, rawNode, rawService, rawSlice } from '../../../test/support/api-objects.js';
import { KindInformer, type KindRequests, type Listed } from './informer.js';
import { deletionOf, endpointSliceAdapter, nodeAdapter, serviceAdapter, type KindAdapter } from './kinds.js';
import type { ReconnectRounds } from './reconnect-rounds.js';
import type { ListAnswer, WatchCallbacks } from './requests.js';

const obj = (name: string, resourceVersion: string, namespace = 'ns'): KubernetesObject => ({
  metadata: { name, namespace, resourceVersion },
});
const list = (resourceVersion: string, ...items: unknown[]) => ({
  resourceVersion,
  items: items as KubernetesObject[],
});
type Answer = ReturnType<typeof list>;

/** A kind whose conversion keeps the resourceVersion, so the log shows which version reached the model. */
const things: KindAdapter = {
  kind: 'Node',
  keyOf: (o) => `${(o as KubernetesObject).metadata?.namespace ?? ''}/${(o as KubernetesObject).metadata?.name ?? ''}`,
  toUpsert: (o) => ({
    ok: true,
    value: {
      kind: 'Node',
      op: 'upsert',
      key: things.keyOf(o) as NodeName,
      object: (o as KubernetesObject).metadata as never,
    },
  }),
};

interface Options {
  readonly adapter?: KindAdapter;
  readonly turnBudgetMs?: number;
  readonly schedule?: Scheduler;
  /** Ends the list() promise only when the test says (`h.answerList`). */
  readonly heldList?: boolean;
  /** Resolves watch() only when the test says (`h.openWatch`). */
  readonly heldWatch?: boolean;
  readonly fatal?: (err: unknown) => boolean;
}

/** An informer on scripted requests: LIST answers in order, watches the test drives; events converted at once. */
function harness(lists: (Answer | Error)[], options: Options = {}) {
  const log: string[] = [];
  const events: (ModelEvent | undefined)[] = [];
  const reports: { kind: ObjectKind; where: string }[] = [];
  const watches: (WatchCallbacks & { resourceVersion: string; request: AbortController })[] = [];
  const retries: (() => void)[] = [];
  /** The resourceVersion each LIST asked for. */
  const asked: string[] = [];
  let answerList: ((a: Answer) => void) | undefined;
  let openWatch: (() => void) | undefined;
  const requests: KindRequests = {
    list: async <L>(prepare: (raw: KubernetesObject) => L, resourceVersion: string): Promise<ListAnswer<L>> => {
      asked.push(resourceVersion);
      const next = options.heldList ? await new Promise<Answer>((resolve) => (answerList = resolve)) : lists.shift();
      if (next === undefined) throw new Error('no more lists');
      if (next instanceof Error) throw next;
      log.push(`list@${next.resourceVersion}`);
      return { resourceVersion: next.resourceVersion, items: next.items.map((i) => prepare(structuredClone(i))) };
    },
    watch: async (resourceVersion, callbacks) => {
      log.push(`watch@${resourceVersion}`);
      const request = new AbortController();
      watches.push({ ...callbacks, resourceVersion, request });
      if (options.heldWatch) await new Promise<void>((resolve) => (openWatch = resolve));
      return request;
    },
  };
  const rounds = {
    retryLater: (_failure: unknown, retry: () => void) => (retries.push(retry), 0),
    reachable: () => {},
  } as unknown as ReconnectRounds;
  let synced = 0;
  const informer = new KindInformer({
    adapter: options.adapter ?? things,
    deletionOf,
    requests,
    emit: (convert) => {
      const event = convert();
      events.push(event);
      if (event) log.push(event.op === 'upsert' ? `upsert ${event.key}@${versionOf(event)}` : `delete ${event.key}`);
    },
    onSynced: () => synced++,
    stopping: new AbortController().signal,
    clock: systemClock,
    logger: new RecordingLogger(),
    rounds,
    report: (kind, where) => reports.push({ kind, where }),
    ...(options.turnBudgetMs !== undefined ? { turnBudgetMs: options.turnBudgetMs } : {}),
    ...(options.schedule ? { schedule: options.schedule } : {}),
    ...(options.fatal ? { fatal: options.fatal } : {}),
  });
  const settled = () => new Promise<void>((resolve) => setTimeout(resolve, 5));
  return {
    informer,
    log,
    events,
    reports,
    watches,
    retries,
    asked,
    settled,
    synced: () => synced,
    answerList: (a: Answer) => answerList!(a),
    openWatch: () => openWatch!(),
  };
}

function versionOf(event: ModelEvent): string | undefined {
  return ((event as { object?: { resourceVersion?: string } }).object ?? {}).resourceVersion;
}

describe('KindInformer: list and watch', () => {
  it.each([
    {
      name: 'a first LIST upserts every object, then watches from its resourceVersion',
      lists: [list('10', obj('a', '1'), obj('b', '2'))],
      expected: ['list@10', 'upsert ns/a@1', 'upsert ns/b@2', 'watch@10'],
    },
    { name: 'an empty first LIST watches at once', lists: [list('3')], expected: ['list@3', 'watch@3'] },
    { name: 'a failed LIST opens no watch', lists: [new Error('boom')], expected: [] },
  ])('$name', async ({ lists, expected }) => {
    const h = harness(lists);
    await h.informer.start();
    expect(h.log).toEqual(expected);
    expect(h.synced()).toBe(expected.length > 0 ? 1 : 0);
  });

  it('a failure its caller calls fatal stops the informer; any other is retried', async () => {
    const forbidden = Object.assign(new Error('forbidden'), { statusCode: 403 });
    const judged: unknown[] = [];
    const fatal = (err: unknown) => (judged.push(err), (err as { statusCode?: number }).statusCode === 403);
    const givenUp = harness([forbidden, list('2')], { fatal });
    await givenUp.informer.start();
    expect(judged).toEqual([forbidden]);
    expect(givenUp.retries).toHaveLength(0);
    expect(givenUp.log).toEqual([]);
    const retried = harness([new Error('boom'), list('2')], { fatal });
    await retried.informer.start();
    expect(retried.retries).toHaveLength(1);
    retried.retries[0]!();
    await retried.settled();
    expect(retried.log).toEqual(['list@2', 'watch@2']);
  });

  it('a relist after 410 Gone deletes what vanished, updates what moved, leaves the rest, adds what is new', async () => {
    const h = harness([
      list('10', obj('a', '1'), obj('b', '2'), obj('c', '3'), obj('c', '4', 'other')),
      list('20', obj('a', '1'), obj('b', '5'), obj('d', '6')),
    ]);
    await h.informer.start();
    h.log.length = 0;
    h.watches[0]!.ended(Object.assign(new Error('Gone'), { statusCode: 410 }));
    await h.settled();
    expect(h.log).toEqual(['list@20', 'delete ns/c', 'delete other/c', 'upsert ns/b@5', 'upsert ns/d@6', 'watch@20']);
    expect(h.informer.size).toEqual({ stored: 3, inModel: 3 });
    expect(h.synced()).toBe(1);
  });

  it('applies watch events: adds, updates (only a new version), deletes of known objects, bookmarks; follows resourceVersion', async () => {
    const h = harness([list('10', obj('a', '1'))]);
    await h.informer.start();
    h.log.length = 0;
    const { event } = h.watches[0]!;
    event('ADDED', obj('b', '11'));
    event('MODIFIED', obj('a', '1')); // same version: nothing
    event('MODIFIED', obj('a', '12'));
    event('DELETED', obj('zz', '13')); // never seen: nothing
    event('DELETED', obj('b', '14'));
    event('BOOKMARK', obj('', '15'));
    expect(h.log).toEqual(['upsert ns/b@11', 'upsert ns/a@12', 'delete ns/b']);
    expect(h.informer.resourceVersion).toBe('15');
    // The watch ends cleanly: it resumes from there, without a LIST.
    h.watches[0]!.ended(null);
    await h.settled();
    expect(h.log.at(-1)).toBe('watch@15');
  });

  it('an ERROR event with 410 makes the next start relist; another failure is retried at the next round', async () => {
    const h = harness([list('10', obj('a', '1')), list('30', obj('a', '1')), list('40')]);
    await h.informer.start();
    h.watches[0]!.event('ERROR', { code: 410 } as KubernetesObject);
    h.watches[0]!.ended(null);
    await h.settled();
    expect(h.log.slice(-2)).toEqual(['list@30', 'watch@30']);
    h.watches[1]!.ended(new Error('refused'));
    await h.settled();
    expect(h.watches).toHaveLength(2);
    expect(h.retries).toHaveLength(1);
    // The retry resumes the watch: the resume point survived the failure.
    h.retries[0]!();
    await h.settled();
    expect(h.log.at(-1)).toBe('watch@30');
  });

  it('lists as the reflector: first from the watch cache (0), after a 410 from the last version seen, consistently once that is unavailable', async () => {
    const expired = Object.assign(new Error('LIST /x: HTTP 410: Expired'), { statusCode: 410 });
    const h = harness([list('10', obj('a', '1')), expired, list('50', obj('a', '1')), list('60')]);
    await h.informer.start();
    h.watches[0]!.event('MODIFIED', obj('a', '12'));
    h.watches[0]!.event('ERROR', { code: 410 } as KubernetesObject);
    h.watches[0]!.ended(null);
    await h.settled();
    // The relist from 12 was refused (compacted): at once, a consistent list, no retry round waited for.
    expect(h.asked).toEqual(['0', '12', '']);
    expect(h.retries).toHaveLength(0);
    // The list went back to version 1 of a: what the consistent list says is applied.
    expect(h.log.slice(-3)).toEqual(['list@50', 'upsert ns/a@1', 'watch@50']);
    // A later 410 relists from the version that list gave, served from the cache again.
    h.watches[1]!.ended(Object.assign(new Error('gone'), { statusCode: 410 }));
    await h.settled();
    expect(h.asked).toEqual(['0', '12', '', '50']);
  });

  it('a LIST whose version is ahead of the server cache ("Too large resource version") lists consistently at once; another failure waits for a round', async () => {
    const tooLarge = Object.assign(new Error('LIST /x: HTTP 504: Too large resource version: 90, current: 80'), {
      statusCode: 504,
    });
    const h = harness([list('10'), tooLarge, list('80')]);
    await h.informer.start();
    h.watches[0]!.event('BOOKMARK', obj('', '90'));
    h.watches[0]!.ended(Object.assign(new Error('gone'), { statusCode: 410 }));
    await h.settled();
    expect(h.asked).toEqual(['0', '90', '']);
    expect(h.log.at(-1)).toBe('watch@80');
    const other = harness([Object.assign(new Error('LIST /x: HTTP 504: Timeout'), { statusCode: 504 })]);
    await other.informer.start();
    expect(other.asked).toEqual(['0']);
    expect(other.retries).toHaveLength(1);
  });

  it('a failed LIST is retried with a relist', async () => {
    const h = harness([new Error('boom'), list('7', obj('a', '1'))]);
    await h.informer.start();
    expect(h.retries).toHaveLength(1);
    h.retries[0]!();
    await h.settled();
    expect(h.log).toEqual(['list@7', 'upsert ns/a@1', 'watch@7']);
  });

  it('stopped during the LIST: no watch is opened', async () => {
    const h = harness([], { heldList: true });
    const starting = h.informer.start();
    await h.settled();
    await h.informer.stop();
    h.answerList(list('1', obj('a', '1')));
    await starting;
    expect(h.watches).toEqual([]);
  });

  it('stopped while a watch is being opened: the watch is aborted once it opens, not left open', async () => {
    const h = harness([list('1')], { heldWatch: true });
    const starting = h.informer.start();
    await h.settled(); // listed; the watch request is out, unanswered
    expect(h.watches).toHaveLength(1);
    await h.informer.stop();
    expect(h.watches[0]!.request.signal.aborted).toBe(false);
    h.openWatch();
    await starting;
    expect(h.watches[0]!.request.signal.aborted).toBe(true);
  });

  it('applies a big LIST over several turns, in the same order, and opens the watch only at its end', async () => {
    const items = Array.from({ length: 1000 }, (_, i) => obj(`o${i}`, String(i)));
    let turns = 0;
    const h = harness([list('5000', ...items)], {
      turnBudgetMs: 0,
      schedule: (fn) => {
        turns++;
        setImmediate(fn);
      },
    });
    await h.informer.start();
    expect(turns).toBeGreaterThan(10);
    expect(h.log.slice(1, -1)).toEqual(
      items.map((o) => `upsert ns/${o.metadata!.name}@${o.metadata!.resourceVersion}`),
    );
    expect(h.log.at(-1)).toBe('watch@5000');
  });

  it('a stop while a LIST is applied ends the apply there and opens no watch', async () => {
    const items = Array.from({ length: 1000 }, (_, i) => obj(`o${i}`, String(i)));
    const h = harness([list('5000', ...items)], { turnBudgetMs: 0 });
    const starting = h.informer.start();
    while (h.events.length < 100) await new Promise((resolve) => setImmediate(resolve));
    await h.informer.stop();
    await starting;
    expect(h.events.length).toBeLessThan(1000);
    expect(h.watches).toHaveLength(0);
  });
});

type Step = readonly ['upsert' | 'delete', unknown];

/** The model event (or `-`) of each watch event, and what was reported. */
async function track(adapter: KindAdapter, steps: readonly Step[]) {
  const h = harness([list('1')], { adapter });
  await h.informer.start();
  const summary = steps.map(([op, o]) => {
    const before = h.events.length;
    h.watches[0]!.event(op === 'upsert' ? 'MODIFIED' : 'DELETED', structuredClone(o) as KubernetesObject);
    const e = h.events.slice(before).find((x) => x !== undefined);
    return e ? `${e.op} ${e.key}` : '-';
  });
  return { summary, reports: h.reports, events: h.events, informer: h.informer };
}

const invalidService = patched(rawService, 'spec.ports.0.port', 'eighty');
const externalName = patched(rawService, 'spec.type', 'ExternalName');
const headless = patched(patched(rawService, 'spec.clusterIP', 'None'), 'spec.clusterIPs', ['None']);
const port81 = patched(rawService, 'spec.ports.0.port', 81);

describe('KindInformer: what the model holds', () => {
  it.each<[string, readonly Step[], readonly string[]]>([
    [
      'add then delete',
      [
        ['upsert', rawService],
        ['delete', rawService],
      ],
      ['upsert shop/web', 'delete shop/web'],
    ],
    [
      'an invalid update keeps the last good version',
      [
        ['upsert', rawService],
        ['upsert', invalidService],
        ['delete', invalidService],
      ],
      ['upsert shop/web', '-', 'delete shop/web'],
    ],
    [
      'an invalid new object is skipped, and so is its deletion',
      [
        ['upsert', invalidService],
        ['delete', invalidService],
      ],
      ['-', '-'],
    ],
    ['the deletion of a never-seen object is ignored', [['delete', rawService]], ['-']],
    [
      'an ignored Service is not in the model',
      [
        ['upsert', externalName],
        ['delete', externalName],
      ],
      ['-', '-'],
    ],
    [
      'a Service turning ExternalName leaves the model',
      [
        ['upsert', rawService],
        ['upsert', externalName],
        ['delete', externalName],
      ],
      ['upsert shop/web', 'delete shop/web', '-'],
    ],
    [
      'a Service turning headless and back',
      [
        ['upsert', rawService],
        ['upsert', headless],
        ['upsert', port81],
      ],
      ['upsert shop/web', 'delete shop/web', 'upsert shop/web'],
    ],
  ])('Service: %s', async (_name, steps, want) => {
    expect((await track(serviceAdapter, steps)).summary).toEqual(want);
  });

  it('reports invalid objects with their kind and key', async () => {
    expect((await track(serviceAdapter, [['upsert', invalidService]])).reports).toEqual([
      { kind: 'Service', where: 'shop/web' },
    ]);
  });

  it('converts EndpointSlices with their trigger time, and ignores slices without a service name', async () => {
    const unlabelled = patched(rawSlice, 'metadata.labels', {});
    const { summary, events } = await track(endpointSliceAdapter, [
      ['upsert', rawSlice],
      ['upsert', unlabelled],
      ['upsert', unlabelled],
    ]);
    expect(summary).toEqual(['upsert shop/web-abc12', 'delete shop/web-abc12', '-']);
    expect(events.find((e) => e !== undefined)).toMatchObject({
      kind: 'EndpointSlice',
      triggerTime: Date.parse('2025-03-01T10:00:00Z'),
    });
  });

  it('converts Nodes by name', async () => {
    const { summary, informer } = await track(nodeAdapter, [
      ['upsert', rawNode],
      ['upsert', patched(rawNode, 'metadata.name', 'node-b')],
      ['delete', rawNode],
    ]);
    expect(summary).toEqual(['upsert node-a', 'upsert node-b', 'delete node-a']);
    expect(informer.size).toEqual({ stored: 1, inModel: 1 });
  });

  it('a listed object is converted as it is parsed, keeps no raw object, and emits and reports as a watched one', async () => {
    const objects = [
      rawService,
      patched(invalidService, 'metadata.name', 'bad'),
      patched(externalName, 'metadata.name', 'ext'),
      { ...patched(rawService, 'metadata.name', 'nometa'), metadata: null },
    ];
    const listed = harness([list('1', ...objects), list('2')], { adapter: serviceAdapter });
    await listed.informer.start();
    listed.watches[0]!.ended(Object.assign(new Error('Gone'), { statusCode: 410 })); // relists empty: deletes all
    await listed.settled();
    const watched = harness([list('1')], { adapter: serviceAdapter });
    await watched.informer.start();
    for (const o of objects) watched.watches[0]!.event('ADDED', structuredClone(o) as KubernetesObject);
    for (const o of objects) watched.watches[0]!.event('DELETED', structuredClone(o) as KubernetesObject);
    expect(listed.events.filter(Boolean)).toEqual(watched.events.filter(Boolean));
    expect(listed.reports).toEqual(watched.reports);
    // Not vacuous: something converted and something reported.
    expect(watched.events.filter(Boolean).length).toBeGreaterThan(0);
    expect(watched.reports.length).toBeGreaterThan(0);
    // What the LIST holds until it is applied: identity and conversion only.
    const prepared = await new Promise<Listed[]>((resolve) => {
      const probe = new KindInformer({
        adapter: serviceAdapter,
        deletionOf,
        requests: {
          list: async <L>(prepare: (raw: KubernetesObject) => L) => {
            const items = [prepare(structuredClone(rawService) as KubernetesObject)];
            resolve(items as Listed[]);
            return { resourceVersion: '1', items };
          },
          watch: async () => new AbortController(),
        },
        emit: () => {},
        onSynced: () => {},
        stopping: new AbortController().signal,
        clock: systemClock,
        logger: new RecordingLogger(),
        rounds: { reachable: () => {} } as unknown as ReconnectRounds,
        report: () => {},
      });
      void probe.start().then(() => probe.stop());
    });
    expect(Object.keys(prepared[0]!).sort()).toEqual(['key', 'modelKey', 'resourceVersion', 'upsert']);
  });
});
