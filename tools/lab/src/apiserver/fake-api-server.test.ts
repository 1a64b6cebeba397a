import { get } from 'node:https';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FakeApiServer, LIST_PIECE_ITEMS, listBodyPieces } from './fake-api-server.js';

const PROXY = 'service.kubernetes.io/service-proxy-name';
const SERVICES = '/api/v1/services';
const SLICES = '/apis/discovery.k8s.io/v1/endpointslices';

const svc = (name: string, labels: Record<string, string> = {}, namespace = 'ns') => ({
  kind: 'Service',
  metadata: { name, namespace, labels },
  spec: { clusterIP: '198.19.0.1', ports: [{ port: 80 }] },
});

interface WatchEvent {
  type: string;
  object: { kind?: string; code?: number; metadata?: { name?: string; resourceVersion?: string } };
}

/** A watch read with plain fetch; `take(n)` waits (bounded) until n events have arrived. */
async function openWatch(url: string) {
  const abort = new AbortController();
  const res = await fetch(url, { signal: abort.signal });
  const events: WatchEvent[] = [];
  let ended = false;
  const reading = (async () => {
    if (!res.body) return;
    const decoder = new TextDecoder();
    let buffered = '';
    try {
      for await (const chunk of res.body) {
        buffered += decoder.decode(chunk as Uint8Array, { stream: true });
        let nl: number;
        while ((nl = buffered.indexOf('\n')) >= 0) {
          events.push(JSON.parse(buffered.slice(0, nl)) as WatchEvent);
          buffered = buffered.slice(nl + 1);
        }
      }
    } catch {
      // aborted or connection destroyed
    } finally {
      ended = true;
    }
  })();
  return {
    status: res.status,
    events,
    get ended() {
      return ended;
    },
    async take(n: number): Promise<WatchEvent[]> {
      await until(() => events.length >= n || ended);
      return events.slice(0, n);
    },
    async waitEnd(): Promise<void> {
      await until(() => ended);
    },
    async close(): Promise<void> {
      abort.abort();
      await reading;
    },
  };
}

async function until(condition: () => boolean, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 5));
  }
}

const summary = (events: readonly WatchEvent[]) =>
  events.map((e) => `${e.type} ${e.object.metadata?.name ?? e.object.code}`);

describe('FakeApiServer', () => {
  let server: FakeApiServer;
  const watches: Array<{ close(): Promise<void> }> = [];
  beforeEach(async () => {
    server = await FakeApiServer.start();
  });
  afterEach(async () => {
    await Promise.all(watches.splice(0).map((w) => w.close()));
    await server.close();
  });
  const watch = async (path: string) => {
    const w = await openWatch(server.url + path);
    watches.push(w);
    return w;
  };

  it('lists with kind, resourceVersion and label selector', async () => {
    server.create(svc('a'));
    server.create(svc('b', { [PROXY]: 'other' }));
    server.create({ kind: 'Node', metadata: { name: 'n1' } });
    const res = await fetch(`${server.url}${SERVICES}?labelSelector=${encodeURIComponent(`!${PROXY}`)}`);
    const body = (await res.json()) as {
      kind: string;
      apiVersion: string;
      metadata: { resourceVersion: string };
      items: Array<{ metadata: { name: string } }>;
    };
    expect(res.status).toBe(200);
    expect(body.kind).toBe('ServiceList');
    expect(body.apiVersion).toBe('v1');
    expect(body.metadata.resourceVersion).toBe('3');
    expect(body.items.map((i) => i.metadata.name)).toEqual(['a']);
  });

  it('writes a big list in pieces, a turn each (chunked), with the same body', async () => {
    const count = LIST_PIECE_ITEMS * 2 + 7;
    for (let i = 0; i < count; i++) server.create(svc(`s${i}`));
    let turns = 0;
    const ticking = setInterval(() => turns++, 0);
    const res = await fetch(`${server.url}${SERVICES}`);
    const text = await res.text();
    clearInterval(ticking);
    expect(res.headers.get('transfer-encoding')).toBe('chunked');
    expect(res.headers.get('content-length')).toBeNull();
    const body = JSON.parse(text) as { kind: string; metadata: { resourceVersion: string }; items: unknown[] };
    expect(body.kind).toBe('ServiceList');
    expect(body.metadata.resourceVersion).toBe(String(count));
    expect(body.items).toHaveLength(count);
    expect(turns).toBeGreaterThan(0);
    // A small list is one piece with its length.
    const small = await fetch(`${server.url}/api/v1/nodes`);
    expect(small.headers.get('content-length')).not.toBeNull();
    expect(await small.json()).toMatchObject({ kind: 'NodeList', items: [] });
  });

  it('list body pieces join to the one-piece JSON', () => {
    const head = { kind: 'ServiceList', apiVersion: 'v1', metadata: { resourceVersion: '9' } };
    for (const n of [0, 1, 3, 4, 5, 9]) {
      const items = Array.from({ length: n }, (_, i) => ({ metadata: { name: `s${i}` }, spec: { ports: [i] } }));
      const pieces = [...listBodyPieces(head, items, 3)];
      expect(pieces.join('')).toBe(JSON.stringify({ ...head, items }));
      expect(pieces).toHaveLength(Math.max(1, Math.ceil(n / 3)));
    }
  });

  it('serves namespaced paths, named objects and field selectors', async () => {
    server.create(svc('a', {}, 'one'));
    server.create(svc('b', {}, 'two'));
    server.create({ kind: 'Node', metadata: { name: 'n1' } });
    server.create({ kind: 'Node', metadata: { name: 'n2' } });
    const names = async (path: string) =>
      ((await (await fetch(server.url + path)).json()) as { items: Array<{ metadata: { name: string } }> }).items.map(
        (i) => i.metadata.name,
      );
    expect(await names('/api/v1/namespaces/two/services')).toEqual(['b']);
    expect(await names('/api/v1/nodes?fieldSelector=metadata.name%3Dn2')).toEqual(['n2']);
    const one = await fetch(`${server.url}/api/v1/namespaces/one/services/a`);
    expect(((await one.json()) as { metadata: { name: string } }).metadata.name).toBe('a');
    expect((await fetch(`${server.url}/api/v1/namespaces/one/services/b`)).status).toBe(404);
    expect((await fetch(`${server.url}/api/v1/configmaps`)).status).toBe(404);
    expect((await fetch(`${server.url}/api/v1/nodes?fieldSelector=spec.unschedulable%3Dtrue`)).status).toBe(400);
    expect((await fetch(`${server.url}${SERVICES}`, { method: 'POST', body: '{}' })).status).toBe(405);
  });

  it('streams changes after a resourceVersion, with selector transitions as ADDED/DELETED', async () => {
    const a = server.create(svc('a'));
    const w = await watch(
      `${SERVICES}?watch=true&resourceVersion=${a.metadata.resourceVersion}&labelSelector=${encodeURIComponent(`!${PROXY}`)}`,
    );
    server.create(svc('b'));
    server.update(svc('a', { x: '1' }));
    server.update(svc('a', { [PROXY]: 'other' })); // leaves the selection
    server.update(svc('a', { [PROXY]: 'other', y: '1' })); // invisible
    server.update(svc('a', {})); // comes back
    server.create({ kind: 'Node', metadata: { name: 'n1' } }); // other resource
    server.delete(svc('b'));
    expect(summary(await w.take(5))).toEqual(['ADDED b', 'MODIFIED a', 'DELETED a', 'ADDED a', 'DELETED b']);
    const rvs = w.events.map((e) => Number(e.object.metadata?.resourceVersion));
    expect(rvs).toEqual([...rvs].sort((x, y) => x - y));
  });

  it('replays history to a watch starting from an old resourceVersion', async () => {
    server.create(svc('a'));
    server.create(svc('b'));
    server.delete(svc('a'));
    const w = await watch(`${SERVICES}?watch=true&resourceVersion=1`);
    expect(summary(await w.take(2))).toEqual(['ADDED b', 'DELETED a']);
  });

  it('starts a watch without resourceVersion with the current objects', async () => {
    server.create(svc('a'));
    const w = await watch(`${SERVICES}?watch=true`);
    server.create(svc('b'));
    expect(summary(await w.take(2))).toEqual(['ADDED a', 'ADDED b']);
  });

  it('answers 410 Gone to watches older than a compaction, and expires open watches', async () => {
    server.create(svc('a'));
    server.create(svc('b'));
    const open = await watch(`${SERVICES}?watch=true&resourceVersion=2`);
    await until(() => server.openWatches('services') === 1);
    server.compact();
    expect(summary(await open.take(1))).toEqual(['ERROR 410']);
    await open.waitEnd();
    const stale = await fetch(`${server.url}${SERVICES}?watch=true&resourceVersion=1`);
    expect(stale.status).toBe(410);
    expect(await stale.json()).toMatchObject({ kind: 'Status', code: 410, reason: 'Expired' });
    const current = await watch(`${SERVICES}?watch=true&resourceVersion=2`);
    expect(current.status).toBe(200);
  });

  it('sends bookmarks only to watches that asked for them', async () => {
    server.create(svc('a'));
    const withBookmarks = await watch(`${SLICES}?watch=true&resourceVersion=1&allowWatchBookmarks=true`);
    const without = await watch(`${SLICES}?watch=true&resourceVersion=1`);
    await until(() => server.openWatches('endpointslices') === 2);
    server.sendBookmark();
    server.create({ kind: 'EndpointSlice', metadata: { name: 's', namespace: 'ns' } });
    const [bookmark] = await withBookmarks.take(2);
    expect(bookmark).toEqual({
      type: 'BOOKMARK',
      object: { kind: 'EndpointSlice', apiVersion: 'discovery.k8s.io/v1', metadata: { resourceVersion: '1' } },
    });
    expect(summary(await without.take(1))).toEqual(['ADDED s']);
  });

  it('drops open watch connections', async () => {
    const w = await watch(`${SERVICES}?watch=true&resourceVersion=0`);
    await until(() => server.openWatches() === 1);
    expect(server.dropConnections()).toBe(1);
    await w.waitEnd();
    expect(server.openWatches()).toBe(0);
  });

  it('ends open watches cleanly after the events already sent', async () => {
    const w = await watch(`${SERVICES}?watch=true&resourceVersion=0`);
    await until(() => server.openWatches() === 1);
    server.create(svc('a'));
    expect(server.endWatches()).toBe(1);
    await w.waitEnd();
    expect(summary(w.events)).toEqual(['ADDED a']);
  });

  it('stops like a killed server and restarts on the same port, keeping objects and history', async () => {
    server.create(svc('a'));
    const open = await watch(`${SERVICES}?watch=true&resourceVersion=${server.resourceVersion}`);
    const fromVersion = server.resourceVersion;
    await server.stop();
    await open.waitEnd();
    await expect(fetch(`${server.url}${SERVICES}`)).rejects.toThrow();
    server.create(svc('b')); // changed while down, as through another API server

    await server.restart();
    const list = (await (await fetch(`${server.url}${SERVICES}`)).json()) as {
      items: Array<{ metadata: { name: string } }>;
    };
    expect(list.items.map((o) => o.metadata.name)).toEqual(['a', 'b']);
    const resumed = await watch(`${SERVICES}?watch=true&resourceVersion=${fromVersion}`);
    expect(summary(await resumed.take(1))).toEqual(['ADDED b']);
    await resumed.close();
    await server.stop();
    await server.stop(); // idempotent, and close() after stop() is fine too
  });

  it('injects failures for the next matching requests and logs every request', async () => {
    server.failNext(SERVICES, 500, { times: 2, verb: 'list' });
    server.failNext(SERVICES, 429, { verb: 'watch' });
    expect((await fetch(server.url + SERVICES)).status).toBe(500);
    const throttled = await fetch(`${server.url}${SERVICES}?watch=true`);
    expect(throttled.status).toBe(429);
    expect(throttled.headers.get('retry-after')).toBe('1');
    expect((await fetch(server.url + SERVICES)).status).toBe(500);
    expect((await fetch(server.url + SERVICES)).status).toBe(200);
    expect(server.requests({ verb: 'list' }).map((r) => [r.status, r.injected])).toEqual([
      [500, true],
      [500, true],
      [200, false],
    ]);
    const mark = server.requestMark;
    await fetch(`${server.url}${SERVICES}?labelSelector=a`);
    expect(server.requests({ since: mark })).toMatchObject([
      { verb: 'list', resource: 'services', query: { labelSelector: 'a' } },
    ]);
  });
});

describe('FakeApiServer: ServiceCIDRs in v1 and v1beta1', () => {
  const V1 = '/apis/networking.k8s.io/v1/servicecidrs';
  const BETA = '/apis/networking.k8s.io/v1beta1/servicecidrs';
  const cidr = (name: string, apiVersion: string) => ({
    kind: 'ServiceCIDR',
    apiVersion,
    metadata: { name },
    spec: { cidrs: ['198.19.0.0/16'] },
  });
  const names = async (url: string) =>
    ((await (await fetch(url)).json()) as { items: { metadata: { name: string } }[] }).items.map(
      (i) => i.metadata.name,
    );

  it('keeps each object in the version it was created with', async () => {
    const server = await FakeApiServer.start();
    try {
      server.create(cidr('ga', 'networking.k8s.io/v1'));
      server.create(cidr('beta', 'networking.k8s.io/v1beta1'));
      expect(await names(server.url + V1)).toEqual(['ga']);
      expect(await names(server.url + BETA)).toEqual(['beta']);
    } finally {
      await server.close();
    }
  });

  it('answers 404 for a resource it is told not to serve', async () => {
    const server = await FakeApiServer.start({ unserved: ['networking.k8s.io/v1/servicecidrs'] });
    try {
      expect((await fetch(server.url + V1)).status).toBe(404);
      expect((await fetch(server.url + BETA)).status).toBe(200);
    } finally {
      await server.close();
    }
  });
});

describe('FakeApiServer: POST creates (Events)', () => {
  it('stores a posted Event in the path namespace and answers 201; a duplicate name is 409', async () => {
    const server = await FakeApiServer.start();
    try {
      const post = (body: unknown) =>
        fetch(`${server.url}/apis/events.k8s.io/v1/namespaces/default/events`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify(body),
        });
      const event = { kind: 'Event', metadata: { name: 'lab-node.1' }, reason: 'Starting' };
      expect((await post(event)).status).toBe(201);
      expect((await post(event)).status).toBe(409);
      expect((await post({ kind: 'Service', metadata: { name: 'x' } })).status).toBe(400);
      expect(server.objects('Event')).toMatchObject([{ metadata: { name: 'lab-node.1', namespace: 'default' } }]);
      expect(server.requests({ verb: 'create' }).map((r) => r.status)).toEqual([201, 409, 400]);
    } finally {
      await server.close();
    }
  });
});

describe('FakeApiServer: PATCH merges (Event series)', () => {
  it('merge-patches a stored Event (200); another content type is 415, an unknown name 404', async () => {
    const server = await FakeApiServer.start();
    try {
      const events = `${server.url}/apis/events.k8s.io/v1/namespaces/default/events`;
      const patch = (name: string, body: unknown, type = 'application/merge-patch+json') =>
        fetch(`${events}/${name}`, { method: 'PATCH', headers: { 'Content-Type': type }, body: JSON.stringify(body) });
      const event = {
        kind: 'Event',
        metadata: { name: 'web.1' },
        reason: 'FailedToStartServiceHealthcheck',
        note: 'n',
      };
      await fetch(events, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify(event),
      });

      const answer = await patch('web.1', { series: { count: 2, lastObservedTime: 't' }, note: null });
      expect(answer.status).toBe(200);
      expect(await answer.json()).toMatchObject({ series: { count: 2 }, reason: 'FailedToStartServiceHealthcheck' });
      expect((await patch('web.1', { series: { count: 3 } }, 'application/json')).status).toBe(415);
      expect((await patch('web.2', { series: { count: 3 } })).status).toBe(404);
      const [stored] = server.objects('Event');
      expect(stored).toMatchObject({ metadata: { name: 'web.1' }, series: { count: 2, lastObservedTime: 't' } });
      expect(stored).not.toHaveProperty('note');
      expect(server.requests({ verb: 'patch' }).map((r) => r.status)).toEqual([200, 415, 404]);
    } finally {
      await server.close();
    }
  });
});

/** GET over HTTPS trusting only `ca`: status and parsed body. */
function httpsJson(url: string, ca: Buffer): Promise<{ status: number; body: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    get(url, { ca }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) as Record<string, unknown> }));
    }).on('error', reject);
  });
}

describe('FakeApiServer as a real API server answers (tls, managedFields, pages, bookmarks)', () => {
  it('serves HTTPS with a CA of its own, objects with managedFields, LISTs in pages and timed bookmarks', async () => {
    const server = await FakeApiServer.start({ tls: true, managedFields: true, bookmarkEveryMs: 20 });
    try {
      expect(server.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
      expect(server.ca?.toString()).toContain('BEGIN CERTIFICATE');
      for (const name of ['a', 'b', 'c', 'd', 'e']) server.create(svc(name));
      // Not trusted without the CA: the certificate is the server's own CA's, not a public one's.
      await expect(fetch(`${server.url}${SERVICES}`)).rejects.toThrow();

      const first = await httpsJson(`${server.url}${SERVICES}?limit=2`, server.ca!);
      expect(first.status).toBe(200);
      const meta = first.body['metadata'] as { resourceVersion: string; continue: string; remainingItemCount: number };
      expect(meta).toMatchObject({ resourceVersion: '5', remainingItemCount: 3 });
      const items = first.body['items'] as Array<{ metadata: { name: string; managedFields: unknown[] } }>;
      expect(items.map((i) => i.metadata.name)).toEqual(['a', 'b']);
      expect(items[0]?.metadata.managedFields).toMatchObject([
        {
          manager: 'kubectl-client-side-apply',
          operation: 'Update',
          fieldsType: 'FieldsV1',
          fieldsV1: { 'f:spec': { 'f:ports': { 'k:{"port":80}': { 'f:port': {} } } } },
        },
      ]);
      // Later pages are the list as it was at the first page, whatever changed since.
      server.create(svc('f'));
      server.delete(svc('c'));
      const names: string[] = items.map((i) => i.metadata.name);
      let token: string | undefined = meta.continue;
      while (token !== undefined) {
        const page = await httpsJson(`${server.url}${SERVICES}?limit=2&continue=${token}`, server.ca!);
        const m = page.body['metadata'] as { resourceVersion: string; continue?: string };
        expect(m.resourceVersion).toBe('5');
        names.push(...(page.body['items'] as Array<{ metadata: { name: string } }>).map((i) => i.metadata.name));
        token = m.continue;
      }
      expect(names).toEqual(['a', 'b', 'c', 'd', 'e']);
      // A token after a compaction, or one the server never gave, is 410 Expired.
      const again = await httpsJson(`${server.url}${SERVICES}?limit=2`, server.ca!);
      server.compact();
      const stale = (again.body['metadata'] as { continue: string }).continue;
      expect((await httpsJson(`${server.url}${SERVICES}?limit=2&continue=${stale}`, server.ca!)).status).toBe(410);
      expect((await httpsJson(`${server.url}${SERVICES}?continue=garbage`, server.ca!)).status).toBe(410);
      // resourceVersion=0 is the watch cache's: whole, whatever the limit; a version beside a continue token is refused.
      const cached = await httpsJson(`${server.url}${SERVICES}?limit=2&resourceVersion=0`, server.ca!);
      expect((cached.body['items'] as unknown[]).length).toBe(5);
      expect((cached.body['metadata'] as { continue?: string }).continue).toBeUndefined();
      const paged = await httpsJson(`${server.url}${SERVICES}?limit=2`, server.ca!);
      const token2 = (paged.body['metadata'] as { continue: string }).continue;
      expect(
        (await httpsJson(`${server.url}${SERVICES}?limit=2&continue=${token2}&resourceVersion=5`, server.ca!)).status,
      ).toBe(400);

      const bookmark = await new Promise<string>((resolve, reject) => {
        const req = get(`${server.url}${SERVICES}?watch=true&allowWatchBookmarks=true`, { ca: server.ca! }, (res) => {
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => {
            const line = chunk.split('\n').find((l) => l.includes('"BOOKMARK"'));
            if (line !== undefined) (resolve(line), req.destroy());
          });
        });
        req.on('error', reject);
      });
      expect(JSON.parse(bookmark)).toMatchObject({ type: 'BOOKMARK', object: { metadata: { resourceVersion: '7' } } });
    } finally {
      await server.close();
    }
  });
});
