import type { KubernetesListObject, KubernetesObject } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { ListWatch, type ListWatchOptions } from './list-watch.js';

const obj = (name: string, resourceVersion: string, namespace = 'ns'): KubernetesObject => ({
  metadata: { name, namespace, resourceVersion },
});
const list = (resourceVersion: string, ...items: KubernetesObject[]): KubernetesListObject<KubernetesObject> => ({
  metadata: { resourceVersion },
  items,
});

/** A scripted informer: LIST answers in order, a fake watch that records its requests and lets the test end them. */
function harness(lists: (KubernetesListObject<KubernetesObject> | Error)[], options: ListWatchOptions = {}) {
  const log: string[] = [];
  const watches: {
    query: Record<string, string>;
    event: (phase: string, o: KubernetesObject) => void;
    end: (err: unknown) => void;
  }[] = [];
  const watch = {
    watch: async (
      _path: string,
      query: Record<string, string>,
      event: (phase: string, o: KubernetesObject) => void,
      end: (err: unknown) => void,
    ) => {
      log.push(`watch@${query['resourceVersion']}`);
      watches.push({ query, event, end });
      return new AbortController();
    },
  };
  const listFn = async () => {
    const next = lists.shift();
    if (next === undefined) throw new Error('no more lists');
    if (next instanceof Error) throw next;
    log.push(`list@${next.metadata?.resourceVersion}`);
    return next;
  };
  const lw = new ListWatch('/api/v1/things', watch as never, listFn, options);
  for (const verb of ['add', 'update'] as const)
    lw.on(verb, (o) => log.push(`${verb} ${o.metadata?.name}@${o.metadata?.resourceVersion}`));
  const deleted: unknown[] = [];
  lw.on('delete', (o) => {
    deleted.push(o);
    log.push(`delete ${o.metadata?.name}@${o.metadata?.resourceVersion}`);
  });
  lw.on('error', (e) => log.push(`error ${(e as Error).message}`));
  const settled = () => new Promise<void>((resolve) => setTimeout(resolve, 5));
  return { lw, log, watches, settled, deleted };
}

describe('ListWatch', () => {
  it('stopped during the LIST: no watch is opened', async () => {
    let listed!: (l: KubernetesListObject<KubernetesObject>) => void;
    const watched: string[] = [];
    const watch = {
      watch: async (path: string) => {
        watched.push(path);
        return new AbortController();
      },
    };
    const lw = new ListWatch(
      '/api/v1/things',
      watch as never,
      () => new Promise<KubernetesListObject<KubernetesObject>>((resolve) => (listed = resolve)),
    );
    const starting = lw.start();
    await new Promise((r) => setTimeout(r, 5));
    await lw.stop();
    listed(list('1', obj('a', '1')));
    await starting;
    expect(watched).toEqual([]);
  });

  it('stopped while a watch is being opened: the watch is aborted once it opens, not left open', async () => {
    let opened!: (request: AbortController) => void;
    const request = new AbortController();
    const watch = {
      watch: () => new Promise<AbortController>((resolve) => (opened = resolve)),
    };
    const lw = new ListWatch('/api/v1/things', watch as never, async () => list('1'));
    const starting = lw.start();
    await new Promise((r) => setTimeout(r, 5)); // listed; the watch request is out, unanswered
    expect(opened).toBeTypeOf('function');
    await lw.stop();
    expect(request.signal.aborted).toBe(false);
    opened(request);
    await starting;
    expect(request.signal.aborted).toBe(true);
  });

  it.each([
    {
      name: 'a first LIST adds every object, then watches from its resourceVersion',
      lists: [list('10', obj('a', '1'), obj('b', '2'))],
      expected: ['list@10', 'add a@1', 'add b@2', 'watch@10'],
    },
    {
      name: 'an empty first LIST watches at once',
      lists: [list('3')],
      expected: ['list@3', 'watch@3'],
    },
    {
      name: 'a failed LIST reports the error and opens no watch',
      lists: [new Error('boom')],
      expected: ['error boom'],
    },
  ])('$name', async ({ lists, expected }) => {
    const h = harness(lists);
    await h.lw.start();
    expect(h.log).toEqual(expected);
  });

  it('a relist after 410 Gone deletes what vanished, updates what moved, leaves the rest, adds what is new', async () => {
    const h = harness([
      list('10', obj('a', '1'), obj('b', '2'), obj('c', '3'), obj('c', '4', 'other')),
      list('20', obj('a', '1'), obj('b', '5'), obj('d', '6')),
    ]);
    await h.lw.start();
    h.log.length = 0;
    h.watches[0]!.end(Object.assign(new Error('Gone'), { statusCode: 410 }));
    await h.settled();
    expect(h.log).toEqual(['list@20', 'delete c@3', 'delete c@4', 'update b@5', 'add d@6', 'watch@20']);
    expect(h.lw.size).toBe(3);
    // The cache kept only identities: that is what a relist's deletions get.
    expect(h.deleted).toEqual([
      { metadata: { namespace: 'ns', name: 'c', resourceVersion: '3' } },
      { metadata: { namespace: 'other', name: 'c', resourceVersion: '4' } },
    ]);
  });

  it('applies watch events: adds, updates (only a new version), deletes of known objects, bookmarks; follows resourceVersion', async () => {
    const h = harness([list('10', obj('a', '1'))]);
    await h.lw.start();
    h.log.length = 0;
    const { event } = h.watches[0]!;
    event('ADDED', obj('b', '11'));
    event('MODIFIED', obj('a', '1')); // same version: nothing
    event('MODIFIED', obj('a', '12'));
    event('DELETED', obj('zz', '13')); // never seen: nothing
    event('DELETED', obj('b', '14'));
    event('BOOKMARK', obj('', '15'));
    expect(h.log).toEqual(['add b@11', 'update a@12', 'delete b@14']);
    expect(h.lw.latestResourceVersion()).toBe('15');
    // The watch ends cleanly: it resumes from there, without a LIST.
    h.watches[0]!.end(null);
    await h.settled();
    expect(h.log.at(-1)).toBe('watch@15');
  });

  it('an ERROR event with 410 makes the next start relist; another failure reports it and stops', async () => {
    const h = harness([list('10', obj('a', '1')), list('30', obj('a', '1'))]);
    await h.lw.start();
    h.watches[0]!.event('ERROR', { code: 410 } as KubernetesObject);
    h.watches[0]!.end(null);
    await h.settled();
    expect(h.log.slice(-2)).toEqual(['list@30', 'watch@30']);
    h.watches[1]!.end(new Error('refused'));
    await h.settled();
    expect(h.log.at(-1)).toBe('error refused');
    expect(h.watches).toHaveLength(2);
  });

  it('passes the selectors to the watch', async () => {
    const h = harness([list('1')], { labelSelector: 'a=b', fieldSelector: 'c=d' });
    await h.lw.start();
    expect(h.watches[0]!.query).toEqual({ resourceVersion: '1', labelSelector: 'a=b', fieldSelector: 'c=d' });
  });

  it('applies a big LIST over several turns, in the same order, and opens the watch only at its end', async () => {
    const items = Array.from({ length: 1000 }, (_, i) => obj(`o${i}`, String(i)));
    let turns = 0;
    let watchedAtTurn: number | undefined;
    const h = harness([list('5000', ...items)], {
      turnBudgetMs: 0,
      schedule: (fn) => {
        turns++;
        setImmediate(fn);
      },
    });
    const original = h.lw.on.bind(h.lw);
    original('add', () => expect(watchedAtTurn).toBeUndefined());
    await h.lw.start();
    watchedAtTurn = turns;
    expect(turns).toBeGreaterThan(10);
    expect(h.log.filter((l) => l.startsWith('add'))).toEqual(
      items.map((o) => `add ${o.metadata!.name}@${o.metadata!.resourceVersion}`),
    );
    expect(h.log.at(-1)).toBe('watch@5000');
  });

  it('a stop while a LIST is applied ends the apply there and opens no watch', async () => {
    const items = Array.from({ length: 1000 }, (_, i) => obj(`o${i}`, String(i)));
    const h = harness([list('5000', ...items)], { turnBudgetMs: 0 });
    h.lw.on('add', (o) => {
      if (o.metadata?.name === 'o100') void h.lw.stop();
    });
    await h.lw.start();
    const adds = h.log.filter((l) => l.startsWith('add')).length;
    expect(adds).toBeGreaterThan(100);
    expect(adds).toBeLessThan(1000);
    expect(h.watches).toHaveLength(0);
  });
});
