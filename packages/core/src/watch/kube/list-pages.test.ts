import { KubeConfig } from '@kubernetes/client-node';
import { FakeApiServer, kubeconfigYaml } from '@kpng/lab';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIST_PAGE_SIZE, listRaw } from './requests.js';

const SERVICES = '/api/v1/services';
const COUNT = LIST_PAGE_SIZE * 2 + 201;

describe('listRaw against an HTTPS API server with real-shaped objects', () => {
  let server: FakeApiServer;
  let kc: KubeConfig;
  beforeAll(async () => {
    server = await FakeApiServer.start({ tls: true, managedFields: true });
    for (let i = 0; i < COUNT; i++)
      server.create({
        kind: 'Service',
        metadata: { name: `s${String(i).padStart(4, '0')}`, namespace: 'ns' },
        spec: { clusterIP: '198.19.0.1', ports: [{ port: 80 }] },
      });
    kc = new KubeConfig();
    kc.loadFromString(kubeconfigYaml(server.url, undefined, server.ca));
  });
  afterAll(() => server.close());

  it('reads the list in pages of 500 (limit, then continue) through the server CA, without managedFields', async () => {
    const mark = server.requestMark;
    const list = await listRaw(kc, { path: SERVICES }, AbortSignal.timeout(60_000));
    expect(list.items).toHaveLength(COUNT);
    expect(new Set(list.items.map((s) => s.metadata?.name)).size).toBe(COUNT);
    expect(list.items.some((s) => s.metadata?.managedFields !== undefined)).toBe(false);
    expect(list.resourceVersion).toBe(String(server.resourceVersion));
    const pages = server.requests({ verb: 'list', since: mark });
    expect(pages.map((r) => [r.status, r.query['limit'], r.query['continue'] !== undefined])).toEqual([
      [200, '500', false],
      [200, '500', true],
      [200, '500', true],
    ]);
  });

  it("resourceVersion 0 (the reflector's first list) is answered whole from the watch cache: one request, not one per 500 objects", async () => {
    const mark = server.requestMark;
    const list = await listRaw(kc, { path: SERVICES }, AbortSignal.timeout(60_000), undefined, undefined, '0');
    expect(list.items).toHaveLength(COUNT);
    expect(list.resourceVersion).toBe(String(server.resourceVersion));
    const requests = server.requests({ verb: 'list', since: mark });
    expect(requests.map((r) => [r.status, r.query['limit'], r.query['resourceVersion']])).toEqual([[200, '500', '0']]);
  });

  it('a relist from a version asks without limit (the cache answers it whole); a consistent list pages without a version', async () => {
    const mark = server.requestMark;
    const version = String(server.resourceVersion);
    expect(
      (await listRaw(kc, { path: SERVICES }, AbortSignal.timeout(60_000), undefined, undefined, version)).items,
    ).toHaveLength(COUNT);
    expect(
      (await listRaw(kc, { path: SERVICES }, AbortSignal.timeout(60_000), undefined, undefined, '')).items,
    ).toHaveLength(COUNT);
    const requests = server.requests({ verb: 'list', since: mark });
    expect(
      requests.map((r) => [
        r.status,
        r.query['limit'] ?? 'whole',
        r.query['resourceVersion'] ?? 'none',
        r.query['continue'] !== undefined,
      ]),
    ).toEqual([
      [200, 'whole', version, false],
      [200, '500', 'none', false],
      [200, '500', 'none', true],
      [200, '500', 'none', true],
    ]);
  });

  it('lists again whole, without pages, when a continue token expired (410), as client-go pager does', async () => {
    const mark = server.requestMark;
    let seen = 0;
    const list = await listRaw(kc, { path: SERVICES }, AbortSignal.timeout(60_000), undefined, (item) => {
      // Mid second page: a compaction expires the token the third page will carry.
      if (++seen === LIST_PAGE_SIZE + 10) server.compact();
      return item;
    });
    expect(list.items).toHaveLength(COUNT);
    const requests = server.requests({ verb: 'list', since: mark });
    expect(requests.map((r) => [r.status, r.query['limit'] ?? 'whole'])).toEqual([
      [200, '500'],
      [200, '500'],
      [410, '500'],
      [200, 'whole'],
    ]);
  });
});
