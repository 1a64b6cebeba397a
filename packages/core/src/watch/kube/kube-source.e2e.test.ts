import { FakeApiServer, kubeconfigFor, type FakeApiServerOptions } from '@kpng/lab';
import { Registry } from 'prom-client';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { registerRestClientMetrics } from '../../metrics/rest-client.js';
import { RecordingLogger } from '../../sync/recording-logger.js';
import { FakeClock } from '../../util/fake-clock.js';
import { KubeSource, type KubeSourceOptions } from './kube-source.js';
import { loadKubeConfig } from './load-kubeconfig.js';
import { HEADLESS_LABEL, SERVICE_PROXY_NAME_LABEL } from './selectors.js';
import { endpointSlice, node, service } from './testdata/objects.js';
import { RecordingSink } from './testdata/recording-sink.js';

/**
 * API end-to-end: the kube source's real client-node informers against the fake API server over
 * real HTTP (lists, watches, resourceVersions, 410 Gone, dropped connections, error statuses).
 */

const SERVICES = '/api/v1/services';
const SLICES = '/apis/discovery.k8s.io/v1/endpointslices';
const ALL_KINDS = ['EndpointSlice', 'Node', 'Service'];

async function eventually(
  condition: () => boolean | Promise<boolean>,
  what: string,
  timeoutMs = 10_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for: ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('kube source against the fake API server', () => {
  let server: FakeApiServer;
  let serverOptions: FakeApiServerOptions = {};
  const running: Array<() => Promise<void>> = [];

  beforeEach(async (ctx) => {
    serverOptions = ctx.task.name.includes('v1 is not served')
      ? { unserved: ['networking.k8s.io/v1/servicecidrs'] }
      : {};
    if (ctx.task.name.includes('neither version'))
      serverOptions = { unserved: ['networking.k8s.io/v1/servicecidrs', 'networking.k8s.io/v1beta1/servicecidrs'] };
    server = await FakeApiServer.start(serverOptions);
  });
  afterEach(async () => {
    await Promise.all(running.splice(0).map((stop) => stop()));
    await server.close();
  });

  async function start(options: Partial<Omit<KubeSourceOptions, 'kubeConfig'>> = {}) {
    const kubeconfig = await kubeconfigFor(server);
    const registry = new Registry();
    const logger = new RecordingLogger();
    const sink = new RecordingSink(() => server.requestMark);
    const abort = new AbortController();
    const source = new KubeSource({
      kubeConfig: loadKubeConfig({ kubeconfigPath: kubeconfig.path }),
      nodeName: 'node-a',
      restClientMetrics: registerRestClientMetrics(registry),
      backoff: { initialMs: 10, maxMs: 100, jitter: 0 },
      logger,
      serviceCIDRs: false, // the ServiceCIDR cases below turn it on
      ...options,
    });
    const run = source.run(sink, abort.signal);
    const stop = async () => {
      abort.abort();
      await run;
      await kubeconfig.remove();
    };
    running.push(stop);
    return { sink, registry, logger, stop };
  }

  async function startSynced(options?: Partial<Omit<KubeSourceOptions, 'kubeConfig'>>) {
    const started = await start(options);
    await eventually(() => started.sink.syncs.length === 3, 'all kinds synced');
    await eventually(() => server.openWatches() === 3, 'three watches open');
    return started;
  }

  it('throttles its requests as clientConnection.qps/burst say (client-go token bucket, fake clock)', async () => {
    const clock = new FakeClock();
    const { sink } = await start({ clock, rateLimit: { qps: 1, burst: 2 } });
    await eventually(() => server.requests().length === 2, 'the burst of two requests');
    await new Promise((r) => setTimeout(r, 200)); // real time passes; the fake clock does not
    expect(server.requests()).toHaveLength(2);
    for (const expected of [3, 4, 5, 6]) {
      await clock.tick(1_000); // one more token per second
      await eventually(() => server.requests().length === expected, `request ${expected}`);
    }
    await eventually(() => sink.syncs.length === 3, 'all kinds synced (3 LISTs, 3 WATCHes)');
    expect(server.requests().map((r) => r.verb)).toEqual(['list', 'list', 'list', 'watch', 'watch', 'watch'].sort());
  });

  const serviceCIDR = (name: string, cidrs: string[], apiVersion = 'networking.k8s.io/v1') => ({
    kind: 'ServiceCIDR',
    apiVersion,
    metadata: { name },
    spec: { cidrs },
  });
  const cidrEvents = (sink: RecordingSink) =>
    sink.batches
      .flat()
      .filter((e) => e.kind === 'ServiceCIDR')
      .map((e) => (e.op === 'upsert' ? e.object : e.key));

  it('watches networking.k8s.io/v1 ServiceCIDRs, without holding up the other kinds', async () => {
    server.create(serviceCIDR('kubernetes', ['198.19.0.0/16', '2001:db8:5e::/64']));
    const { sink, logger } = await start({ serviceCIDRs: true });
    await eventually(() => cidrEvents(sink).length === 1, 'the ServiceCIDR');
    expect(cidrEvents(sink)).toEqual([{ name: 'kubernetes', cidrs: ['198.19.0.0/16', '2001:db8:5e::/64'] }]);
    server.create(serviceCIDR('extra', ['203.0.113.0/24']));
    server.delete({ kind: 'ServiceCIDR', metadata: { name: 'kubernetes' } });
    await eventually(() => cidrEvents(sink).length === 3, 'the add and the delete');
    expect(cidrEvents(sink).slice(1)).toEqual([{ name: 'extra', cidrs: ['203.0.113.0/24'] }, 'kubernetes']);
    expect(logger.records.map((r) => r.msg)).toContain('watching ServiceCIDRs');
  });

  it('falls back to v1beta1 ServiceCIDRs when v1 is not served', async () => {
    server.create(serviceCIDR('kubernetes', ['198.19.0.0/16'], 'networking.k8s.io/v1beta1'));
    const { sink } = await start({ serviceCIDRs: true });
    await eventually(() => cidrEvents(sink).length === 1, 'the beta ServiceCIDR');
    expect(cidrEvents(sink)).toEqual([{ name: 'kubernetes', cidrs: ['198.19.0.0/16'] }]);
    await eventually(
      () => server.requests({ verb: 'watch' }).some((r) => r.path === '/apis/networking.k8s.io/v1beta1/servicecidrs'),
      'the beta watch',
    );
  });

  it('runs without ServiceCIDRs when neither version is served, and says so once', async () => {
    const { sink, logger } = await start({ serviceCIDRs: true });
    await eventually(() => sink.syncs.length === 3, 'the required kinds synced');
    await eventually(
      () => logger.records.some((r) => r.msg.startsWith('the API server serves no ServiceCIDRs')),
      'the notice',
    );
    expect(cidrEvents(sink)).toEqual([]);
    expect(
      server
        .requests()
        .filter((r) => r.path.includes('servicecidrs'))
        .map((r) => r.status),
    ).toEqual([404, 404]);
  });

  const cidrProbes = () => server.requests().filter((r) => r.path.includes('servicecidrs') && r.verb === 'list');

  it('ServiceCIDRs forbidden (403): warned once, asked again every 5 minutes at -v=2, watched once allowed', async () => {
    const clock = new FakeClock();
    server.failNext('/apis/networking.k8s.io/v1/servicecidrs', 403, { verb: 'list', times: 3, message: 'forbidden' });
    const { sink, logger } = await start({ serviceCIDRs: true, clock });
    await eventually(() => sink.syncs.length === 3, 'the required kinds synced, not held up');
    await eventually(() => cidrProbes().length === 1, 'the first probe');
    const forbidden = (level: string) =>
      logger.records.filter((r) => r.level === level && r.msg.startsWith('not allowed to list ServiceCIDRs'));
    await eventually(() => forbidden('warn').length === 1, 'the warning');
    await clock.tick(299_999);
    expect(cidrProbes()).toHaveLength(1);
    for (const probes of [2, 3]) {
      await clock.tick(probes === 2 ? 1 : 300_000);
      await eventually(() => cidrProbes().length === probes, `probe ${probes}`);
      await eventually(() => forbidden('debug').length === probes - 1, `probe ${probes} logged at -v=2`);
    }
    await clock.tick(300_000); // allowed now (the fake server's answers were scripted for 3 requests)
    await eventually(() => logger.records.some((r) => r.msg === 'watching ServiceCIDRs'), 'the watch');
    expect(forbidden('warn')).toHaveLength(1);
    expect(
      cidrProbes()
        .map((r) => r.status)
        .slice(0, 4),
    ).toEqual([403, 403, 403, 200]); // then the informer's LIST
  });

  it("ServiceCIDRs unclear (500): asked again with the kit's backoff from 10 s, doubling, until answered", async () => {
    const clock = new FakeClock();
    server.failNext('/apis/networking.k8s.io/v1/servicecidrs', 500, { verb: 'list', times: 3, message: 'busy' });
    const { sink, logger } = await start({ serviceCIDRs: true, clock });
    await eventually(() => sink.syncs.length === 3, 'the required kinds synced, not held up');
    const unclear = () => logger.records.filter((r) => r.msg.startsWith('cannot tell which ServiceCIDR version'));
    await eventually(() => unclear().length === 1, 'the first failure');
    for (const [probes, delayMs] of [
      [2, 10_000],
      [3, 20_000],
      [4, 40_000],
    ] as const) {
      await clock.tick(delayMs - 1);
      expect(cidrProbes()).toHaveLength(probes - 1);
      await clock.tick(1);
      await eventually(() => cidrProbes().length === probes, `probe ${probes} after ${delayMs} ms`);
    }
    await eventually(() => logger.records.some((r) => r.msg === 'watching ServiceCIDRs'), 'the watch');
    expect(unclear().map((r) => r.fields?.['delayMs'])).toEqual([10_000, 20_000, 40_000]);
  });

  it('ServiceCIDRs unserved (404 for both versions): said once, asked again after 5 minutes', async () => {
    const clock = new FakeClock();
    for (const version of ['v1', 'v1beta1'])
      server.failNext(`/apis/networking.k8s.io/${version}/servicecidrs`, 404, { verb: 'list' });
    server.create(serviceCIDR('kubernetes', ['198.19.0.0/16']));
    const { sink, logger } = await start({ serviceCIDRs: true, clock });
    await eventually(() => sink.syncs.length === 3, 'the required kinds synced, not held up');
    const unserved = () => logger.records.filter((r) => r.msg.startsWith('the API server serves no ServiceCIDRs'));
    await eventually(() => unserved().length === 1, 'the notice, once both versions answered');
    expect(unserved().map((r) => r.level)).toEqual(['info']);
    expect(cidrProbes()).toHaveLength(2);
    await clock.tick(300_000); // e.g. the cluster was upgraded meanwhile
    await eventually(() => cidrEvents(sink).length === 1, 'the ServiceCIDR, once served');
    expect(cidrProbes().map((r) => r.status)).toEqual([404, 404, 200, 200]); // probe, then the informer's LIST
  });

  it('reports each kind synced only once its initial list is in the sink', async () => {
    server.create(service('web'));
    server.create(service('api', { ip: '198.19.0.11' }));
    server.create(endpointSlice('web-1', 'web'));
    server.create(node('node-a'));
    server.create(node('node-b'));
    server.failNext(SERVICES, 500, { verb: 'list', times: 2 });
    const { sink, logger } = await start();
    await eventually(() => sink.syncs.length === 3, 'all kinds synced');

    expect([...sink.syncedKinds()].sort()).toEqual(ALL_KINDS);
    const byKind = Object.fromEntries(sink.syncs.map((s) => [s.kind, s]));
    expect(byKind['Service']?.keys).toEqual(['shop/api', 'shop/web']);
    expect(byKind['EndpointSlice']?.keys).toEqual(['shop/web-1']);
    expect(byKind['Node']?.keys).toEqual(['node-a']);
    // A list arrives as one batch (one model transaction), not one per object.
    expect(sink.batches.filter((b) => b.some((e) => e.kind === 'Service')).map((b) => b.length)).toEqual([2]);
    // The Service sync came after the two failed lists and the successful one.
    const serviceLists = server.requests({ verb: 'list', resource: 'services' });
    expect(serviceLists.map((r) => r.status)).toEqual([500, 500, 200]);
    expect(byKind['Service']?.context).toBeGreaterThan(serviceLists[2]!.seq);
    expect(logger.at('warn').filter((r) => r.fields['kind'] === 'Service')).toHaveLength(2);
  });

  it('delivers adds, updates and deletes of every kind, batching same-turn events', async () => {
    const { sink } = await startSynced();
    server.create(service('web'));
    server.create(endpointSlice('web-1', 'web'));
    server.create(node('node-a'));
    server.create(node('node-b')); // another node: not watched
    await eventually(() => sink.keys().length === 3, 'three objects');
    expect(sink.keys()).toEqual(['node-a', 'shop/web', 'shop/web-1']);

    server.update(service('web', { port: 81 }));
    server.update(endpointSlice('web-1', 'web', { addresses: ['198.18.1.5', '198.18.1.6'] }));
    server.update(node('node-a', 'zone-b'));
    await eventually(
      () =>
        sink.get('Node', 'node-a')?.op === 'upsert' && JSON.stringify(sink.get('Node', 'node-a')).includes('zone-b'),
      'node update',
    );
    await eventually(() => sink.events.length === 6, 'six events');
    expect(sink.get('Service', 'shop/web')).toMatchObject({ object: { ports: [{ port: 81 }] } });
    expect(sink.get('EndpointSlice', 'shop/web-1')).toMatchObject({ object: { endpoints: [{}, {}] } });

    server.delete(service('web'));
    server.delete(endpointSlice('web-1', 'web'));
    server.delete(node('node-a'));
    await eventually(() => sink.keys().length === 0, 'everything deleted');
    expect(
      sink.events
        .slice(6)
        .map((e) => `${e.op} ${e.kind}`)
        .sort(),
    ).toEqual(['delete EndpointSlice', 'delete Node', 'delete Service']);
  });

  it('with policy, watches every Pod, Namespace and NetworkPolicy (reduced), and delivers their changes', async () => {
    server.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'shop', labels: { team: 'a' } } });
    server.create({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { namespace: 'shop', name: 'far', labels: { app: 'db' }, managedFields: [{ manager: 'x' }] },
      spec: { nodeName: 'node-b', containers: [{ name: 'c', ports: [{ name: 'sql', containerPort: 5432 }] }] },
      status: { podIPs: [{ ip: '198.18.2.7' }] },
    });
    const { sink } = await start({ policy: true });
    await eventually(() => sink.syncs.length === 6, 'six kinds synced');
    expect(sink.get('Pod', 'shop/far')).toMatchObject({
      object: { ips: ['198.18.2.7'], labels: { app: 'db' }, nodeName: 'node-b', ports: [{ name: 'sql', port: 5432 }] },
    });
    expect(sink.get('Namespace', 'shop')).toMatchObject({ object: { labels: { team: 'a' } } });
    server.create({
      apiVersion: 'networking.k8s.io/v1',
      kind: 'NetworkPolicy',
      metadata: { namespace: 'shop', name: 'deny' },
      spec: { podSelector: {} },
    });
    await eventually(() => sink.get('NetworkPolicy', 'shop/deny') !== undefined, 'the policy');
    expect(sink.get('NetworkPolicy', 'shop/deny')).toMatchObject({ object: { policyTypes: ['Ingress'] } });
    server.delete({ kind: 'Pod', metadata: { namespace: 'shop', name: 'far' } });
    await eventually(() => sink.get('Pod', 'shop/far') === undefined, 'the pod deletion');
    expect(sink.events.at(-1)).toEqual({ kind: 'Pod', op: 'delete', key: 'shop/far' });
  });

  it('watches every node in central-core mode', async () => {
    server.create(node('node-a'));
    server.create(node('node-b'));
    const { sink } = await startSynced({ allNodes: true });
    expect(sink.keys('Node')).toEqual(['node-a', 'node-b']);
    expect(server.requests({ verb: 'list', resource: 'nodes' })[0]?.query['fieldSelector']).toBeUndefined();
  });

  it('hides Services of another proxy until the label goes, and headless slices', async () => {
    server.create(service('other', { labels: { [SERVICE_PROXY_NAME_LABEL]: 'foo-bar' } }));
    server.create(endpointSlice('headless-1', 'db', { labels: { [HEADLESS_LABEL]: '' } }));
    const { sink } = await startSynced();
    server.create(service('marker', { ip: '198.19.0.99' }));
    await eventually(() => sink.keys('Service').includes('shop/marker'), 'marker');
    expect(sink.keys()).toEqual(['shop/marker']);

    server.update(service('other'));
    await eventually(() => sink.keys('Service').includes('shop/other'), 'label removed: visible');
    server.update(service('other', { labels: { [SERVICE_PROXY_NAME_LABEL]: 'foo-bar' } }));
    await eventually(() => !sink.keys('Service').includes('shop/other'), 'label added: gone');
    expect(sink.keys('EndpointSlice')).toEqual([]);
  });

  it('with a service-proxy-name, sees only the Services labelled with it', async () => {
    server.create(service('mine', { labels: { [SERVICE_PROXY_NAME_LABEL]: 'kpng-example' } }));
    server.create(service('default-proxy', { ip: '198.19.0.11' }));
    const { sink } = await startSynced({ serviceProxyName: 'kpng-example' });
    expect(sink.keys('Service')).toEqual(['shop/mine']);
  });

  it('keeps the last good version when an update is invalid', async () => {
    server.create(service('web'));
    const { sink } = await startSynced();
    const invalid = { ...service('web'), spec: { ...service('web').spec, ports: [{ name: 'http', port: 'eighty' }] } };
    server.update(invalid);
    server.create(service('marker', { ip: '198.19.0.99' }));
    await eventually(() => sink.keys('Service').includes('shop/marker'), 'marker');
    expect(sink.get('Service', 'shop/web')).toMatchObject({ op: 'upsert', object: { ports: [{ port: 80 }] } });
    expect(sink.events.filter((e) => e.key === 'shop/web').map((e) => e.op)).toEqual(['upsert']);
  });

  it('relists after a 410 on an open watch and reports nothing when nothing changed', async () => {
    server.create(service('web'));
    server.create(endpointSlice('web-1', 'web'));
    server.create(node('node-a'));
    const { sink } = await startSynced();
    const batchesBefore = sink.batches.length;
    const mark = server.requestMark;

    server.compact(); // every open watch gets an ERROR 410 event and ends
    await eventually(() => server.requests({ verb: 'list', since: mark }).length === 3, 'three relists');
    await eventually(() => server.openWatches() === 3, 'watches reopened');
    server.create(service('marker', { ip: '198.19.0.99' }));
    await eventually(() => sink.keys('Service').includes('shop/marker'), 'marker');

    const newEvents = sink.batches.slice(batchesBefore).flat();
    expect(newEvents.map((e) => `${e.op} ${e.key}`)).toEqual(['upsert shop/marker']);
  });

  it('delivers deletions of objects that vanished while the watch was gone (HTTP 410 then relist)', async () => {
    server.create(service('web'));
    server.create(service('api', { ip: '198.19.0.11' }));
    const { sink } = await startSynced();
    const mark = server.requestMark;

    // In one synchronous step, so the source cannot reconnect in between.
    server.dropConnections();
    server.delete(service('api'));
    server.update(service('web', { port: 81 }));
    server.compact({ expireOpenWatches: false });

    await eventually(() => !sink.keys('Service').includes('shop/api'), 'vanished Service deleted');
    await eventually(
      () =>
        (sink.get('Service', 'shop/web') as { object?: { ports?: Array<{ port: number }> } } | undefined)?.object
          ?.ports?.[0]?.port === 81,
      'update seen',
    );
    expect(server.requests({ verb: 'watch', resource: 'services', status: 410, since: mark }).length).toBeGreaterThan(
      0,
    );
    expect(server.requests({ verb: 'list', resource: 'services', since: mark }).length).toBeGreaterThan(0);
  });

  it('resumes after a watch timeout from its bookmark, without relisting after a compaction', async () => {
    server.create(service('web'));
    server.create(node('node-a'));
    const { sink } = await startSynced();
    const mark = server.requestMark;

    // In one synchronous step: a change none of our watches selects moves the resourceVersion on,
    // the bookmark tells every watch, history before it is compacted away, then each watch ends
    // cleanly (the bookmark is read before the end).
    server.create(node('node-b'));
    const bookmarkVersion = String(server.resourceVersion);
    server.sendBookmark();
    server.compact({ expireOpenWatches: false });
    server.endWatches();

    await eventually(() => server.requests({ verb: 'watch', since: mark }).length === 3, 'three watches reopened');
    server.delete(service('web'));
    await eventually(() => !sink.keys('Service').includes('shop/web'), 'deletion after reconnect');
    const reopened = server.requests({ verb: 'watch', since: mark });
    expect(reopened.map((r) => [r.status, r.query['resourceVersion'], r.query['allowWatchBookmarks']])).toEqual(
      Array.from({ length: 3 }, () => [200, bookmarkVersion, 'true']),
    );
    expect(server.requests({ verb: 'list', since: mark })).toEqual([]);
  });

  it('survives dropped connections and injected 500s and 429s, and counts requests by real status', async () => {
    const { sink, registry, logger } = await startSynced();
    server.failNext(SERVICES, 500, { verb: 'watch', times: 2 });
    server.failNext(SLICES, 429, { verb: 'watch' });
    server.dropConnections();
    server.create(service('web'));
    server.create(endpointSlice('web-1', 'web'));
    await eventually(() => sink.keys().length === 2, 'changes made while disconnected arrive');
    await eventually(() => server.openWatches() === 3, 'watches reopened');

    server.update(service('web', { port: 81 }));
    await eventually(
      () => JSON.stringify(sink.get('Service', 'shop/web')).includes('"port":81'),
      'later change arrives',
    );
    expect(server.requests({ verb: 'watch', resource: 'services', status: 500 })).toHaveLength(2);
    expect(logger.at('warn').some((r) => r.fields['statusCode'] === 500)).toBe(true);

    const host = new URL(server.url).host;
    const count = (text: string, code: string) =>
      Number(
        new RegExp(`^rest_client_requests_total\\{code="${code}",method="GET",host="${host}"\\} (\\d+)$`, 'm').exec(
          text,
        )?.[1] ?? 0,
      );
    // Every answer the server sent, counted by the status the client received.
    await eventually(
      async () => count(await registry.metrics(), '200') === server.requests({ status: 200 }).length,
      'all 200s counted',
    );
    const text = await registry.metrics();
    expect(count(text, '500')).toBe(2);
    expect(count(text, '429')).toBe(1);
    expect(text).toContain(`rest_client_request_duration_seconds_count{verb="GET",host="${new URL(server.url).host}"}`);
  });

  it('honours Retry-After from a starting API server instead of backing off (production schedule)', async () => {
    server.create(service('web'));
    const { sink, logger } = await startSynced({ backoff: {} });
    const mark = server.requestMark;
    // What a starting API server answers until it is ready; client-go's 800 ms doubling backoff
    // would take 0.8 + 1.6 + 3.2 + 6.4 + 12.8 s to get through five of these.
    server.failNext(SERVICES, 503, { verb: 'watch', times: 5, retryAfterSeconds: 0 });
    server.endWatches();
    await eventually(() => server.openWatches('services') === 1, 'Services watch back', 3_000);
    server.update(service('web', { port: 81 }));
    await eventually(
      () => JSON.stringify(sink.get('Service', 'shop/web')).includes('"port":81'),
      'change arrives',
      3_000,
    );

    const watches = server.requests({ verb: 'watch', resource: 'services', since: mark });
    expect(watches.map((r) => r.status)).toEqual([503, 503, 503, 503, 503, 200]);
    expect(server.requests({ verb: 'list', since: mark })).toEqual([]);
    expect(
      logger
        .at('warn')
        .filter((r) => r.fields['kind'] === 'Service')
        .map((r) => r.fields['retryAfterMs']),
    ).toContain(0);
  });

  it('stops: run resolves, watches close and nothing more reaches the sink', async () => {
    const { sink, stop } = await startSynced();
    await stop();
    await eventually(() => server.openWatches() === 0, 'watches closed');
    const batches = sink.batches.length;
    server.create(service('late'));
    server.create(service('later', { ip: '198.19.0.12' }));
    // The server's request log shows whether anything reconnected to fetch them.
    const mark = server.requestMark;
    await new Promise((r) => setTimeout(r, 50));
    expect(server.requests({ since: mark })).toEqual([]);
    expect(sink.batches.length).toBe(batches);
  });
});
