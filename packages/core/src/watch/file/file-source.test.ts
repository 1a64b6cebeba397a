import { mkdtemp, rm, writeFile, unlink, rename } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ServiceModel } from '../../model/types.js';
import { invalidObjectsTotal } from '../../metrics/objects.js';
import { FileSource, type FileSourceOptions } from './file-source.js';
import { capturingLogger, eventually, runSource, type RecordingSink } from '../../../test/support/source-sink.js';

const service = (name: string, port = 80, clusterIP = '198.19.0.10') => `apiVersion: v1
kind: Service
metadata: {name: ${name}, namespace: default}
spec:
  clusterIP: ${clusterIP}
  ports: [{name: http, port: ${port}, protocol: TCP}]
`;
const slice = (name: string, serviceName: string, ip = '198.18.1.5') => `apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata:
  name: ${name}
  namespace: default
  labels: {kubernetes.io/service-name: ${serviceName}}
  annotations: {endpoints.kubernetes.io/last-change-trigger-time: "2025-03-01T10:00:00Z"}
addressType: IPv4
ports: [{name: http, port: 8080, protocol: TCP}]
endpoints: [{addresses: ["${ip}"], conditions: {ready: true}, nodeName: node-a}]
`;
const node = (name: string) => `apiVersion: v1
kind: Node
metadata: {name: ${name}, labels: {topology.kubernetes.io/zone: zone-a}}
status: {addresses: [{type: InternalIP, address: 198.18.255.1}]}
`;
const docs = (...parts: string[]) => parts.join('---\n');

let dir: string;
let stops: (() => Promise<void>)[];

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'kpng-file-source-'));
  stops = [];
});
afterEach(async () => {
  await Promise.all(stops.map((stop) => stop()));
  await rm(dir, { recursive: true, force: true });
});

function start(path: string, opts: Partial<FileSourceOptions> = {}) {
  const log = capturingLogger();
  const running = runSource(new FileSource({ path, pollIntervalMs: 40, debounceMs: 5, log, ...opts }));
  stops.push(running.stop);
  return { ...running, log };
}

const lastBatch = (sink: RecordingSink) => sink.batches[sink.batches.length - 1];

describe('FileSource', () => {
  it('delivers the initial state in one batch, then marks every kind synced', async () => {
    const path = join(dir, 'cluster.yaml');
    await writeFile(path, docs(service('web'), slice('web-1', 'web'), node('node-a')));
    const { sink } = start(path);
    await eventually('synced', () => sink.syncedKinds.length === 3);
    expect(sink.batches).toHaveLength(1);
    expect([...sink.syncedKinds].sort()).toEqual(['EndpointSlice', 'Node', 'Service']);
    expect(sink.keys('Service')).toEqual(['default/web']);
    expect(sink.keys('EndpointSlice')).toEqual(['default/web-1']);
    expect(sink.keys('Node')).toEqual(['node-a']);
    expect(sink.get('EndpointSlice', 'default/web-1')).toMatchObject({ triggerTime: Date.UTC(2025, 2, 1, 10) });
  });

  it('delivers only what changed on update, and deletes what vanished', async () => {
    const path = join(dir, 'cluster.yaml');
    await writeFile(path, docs(service('web'), service('api', 81, '198.19.0.11'), slice('web-1', 'web')));
    const { sink } = start(path);
    await eventually('synced', () => sink.syncedKinds.length === 3);

    await writeFile(path, docs(service('web', 8000), slice('web-1', 'web')));
    await eventually('second batch', () => sink.batches.length === 2);
    expect(lastBatch(sink)).toEqual([
      expect.objectContaining({ kind: 'Service', op: 'upsert', key: 'default/web' }),
      { kind: 'Service', op: 'delete', key: 'default/api' },
    ]);
    expect(sink.get('Service', 'default/web')?.object).toMatchObject({ ports: [{ port: 8000 }] });
    expect(sink.syncedKinds).toHaveLength(3);
  });

  it('sends nothing when a rewrite changes nothing the model holds', async () => {
    const path = join(dir, 'cluster.yaml');
    await writeFile(path, service('web'));
    const { sink, log } = start(path);
    await eventually('synced', () => sink.syncedKinds.length === 3);
    await writeFile(path, `# a comment\n${service('web')}`);
    await eventually('re-read', () => log.lines.some((l) => l.msg === 'manifests read, nothing changed'));
    expect(sink.batches).toHaveLength(1);
  });

  it('keeps serving the last good state while the file is malformed, with path:line:column', async () => {
    const path = join(dir, 'cluster.yaml');
    await writeFile(path, docs(service('web'), slice('web-1', 'web')));
    const { sink, log } = start(path);
    await eventually('synced', () => sink.syncedKinds.length === 3);

    await writeFile(path, 'kind: Service\nmetadata:\n  name: web\n    broken: [\n');
    await eventually('malformed report', () => log.lines.some((l) => l.level === 'error'));
    const error = log.lines.find((l) => l.level === 'error')!;
    expect(error.msg).toContain(`${path}:`);
    expect(String(error.fields['error'])).toMatch(/cluster\.yaml:\d+:\d+: /);
    expect(sink.batches).toHaveLength(1);

    await writeFile(path, docs(service('web')));
    await eventually('recovery', () => sink.batches.length === 2);
    expect(lastBatch(sink)).toEqual([{ kind: 'EndpointSlice', op: 'delete', key: 'default/web-1' }]);
  });

  it('keeps the last good state when the file disappears', async () => {
    const path = join(dir, 'cluster.yaml');
    await writeFile(path, service('web'));
    const { sink, log } = start(path);
    await eventually('synced', () => sink.syncedKinds.length === 3);
    await unlink(path);
    await eventually('read error', () => log.lines.some((l) => l.level === 'error'));
    expect(sink.keys('Service')).toEqual(['default/web']);
    await writeFile(path, service('web', 90));
    await eventually('update after re-creation', () => sink.batches.length === 2);
  });

  it('notices a file replaced by rename, as editors and kubectl do', async () => {
    const path = join(dir, 'cluster.yaml');
    await writeFile(path, service('web'));
    const { sink } = start(path);
    await eventually('synced', () => sink.syncedKinds.length === 3);
    await writeFile(join(dir, 'next.tmp'), service('web', 90));
    await rename(join(dir, 'next.tmp'), path);
    await eventually('update', () => sink.batches.length === 2);
    expect(sink.get('Service', 'default/web')?.object).toMatchObject({ ports: [{ port: 90 }] });
  });

  it('skips a malformed object, serves the others, and keeps its older good version', async () => {
    const path = join(dir, 'cluster.yaml');
    await writeFile(path, docs(service('web'), service('api', 81, '198.19.0.11')));
    const { sink } = start(path);
    await eventually('synced', () => sink.syncedKinds.length === 3);
    const before = (await invalidObjectsTotal.get()).values.find((v) => v.labels['kind'] === 'Service')?.value ?? 0;

    // api becomes invalid (port 0), web changes, new arrives: api's old version must stay.
    await writeFile(
      path,
      docs(service('web', 8080), service('api', 0, '198.19.0.11'), service('new', 82, '198.19.0.12')),
    );
    await eventually('second batch', () => sink.batches.length === 2);
    expect(lastBatch(sink)!.map((e) => `${e.op} ${e.key}`)).toEqual(['upsert default/web', 'upsert default/new']);
    expect(sink.get('Service', 'default/api')?.object).toMatchObject({ ports: [{ port: 81 }] });
    const after = (await invalidObjectsTotal.get()).values.find((v) => v.labels['kind'] === 'Service')?.value ?? 0;
    expect(after).toBe(before + 1);
  });

  it('never delivers an object that was invalid from the start', async () => {
    const path = join(dir, 'cluster.yaml');
    await writeFile(path, docs(service('web'), service('bad', 0)));
    const { sink } = start(path);
    await eventually('synced', () => sink.syncedKinds.length === 3);
    expect(sink.keys('Service')).toEqual(['default/web']);
  });

  it('reads List and typed-list forms, and ignores other kinds', async () => {
    const path = join(dir, 'cluster.yaml');
    const list = `apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: Service, metadata: {name: a}, spec: {clusterIP: 198.19.0.1, ports: [{port: 80}]}}
- {apiVersion: v1, kind: ConfigMap, metadata: {name: c}, data: {}}
- {apiVersion: v1, kind: constructor, metadata: {name: c}}
- {apiVersion: serving.knative.dev/v1, kind: Service, metadata: {name: k}, spec: {}}
`;
    const typed = `apiVersion: v1
kind: NodeList
items:
- {metadata: {name: node-b}}
`;
    await writeFile(path, docs(list, typed));
    const { sink } = start(path);
    await eventually('synced', () => sink.syncedKinds.length === 3);
    expect(sink.keys('Service')).toEqual(['default/a']);
    expect(sink.keys('Node')).toEqual(['node-b']);
  });

  it('skips objects hidden by the proxy labels, and other nodes when nodeName is set', async () => {
    const path = join(dir, 'cluster.yaml');
    const foreign = service('foreign').replace(
      'namespace: default',
      'namespace: default, labels: {service.kubernetes.io/service-proxy-name: other}',
    );
    await writeFile(path, docs(service('web'), foreign, node('node-a'), node('node-b')));
    const { sink } = start(path, { nodeName: 'node-b' });
    await eventually('synced', () => sink.syncedKinds.length === 3);
    expect(sink.keys('Service')).toEqual(['default/web']);
    expect(sink.keys('Node')).toEqual(['node-b']);
  });

  it('reads a directory of manifests and follows files coming and going', async () => {
    await writeFile(join(dir, 'a-services.yaml'), service('web'));
    await writeFile(join(dir, 'b-slices.json'), JSON.stringify({ apiVersion: 'v1', kind: 'List', items: [] }));
    await writeFile(join(dir, 'notes.txt'), 'not a manifest');
    const { sink } = start(dir);
    await eventually('synced', () => sink.syncedKinds.length === 3);
    expect(sink.keys('Service')).toEqual(['default/web']);

    await writeFile(join(dir, 'c-nodes.yml'), node('node-a'));
    await eventually('new file', () => sink.keys('Node').length === 1);
    await unlink(join(dir, 'a-services.yaml'));
    await eventually('removed file', () => sink.keys('Service').length === 0);
  });

  it('in a directory, a malformed file keeps its own last good objects while others update', async () => {
    await writeFile(join(dir, 'a.yaml'), service('web'));
    await writeFile(join(dir, 'b.yaml'), service('api', 81, '198.19.0.11'));
    const { sink, log } = start(dir);
    await eventually('synced', () => sink.syncedKinds.length === 3);
    await writeFile(join(dir, 'a.yaml'), 'kind: [');
    await eventually('malformed report', () => log.lines.some((l) => l.level === 'error'));
    await writeFile(join(dir, 'b.yaml'), service('api', 82, '198.19.0.11'));
    await eventually(
      'update of the good file',
      () => (sink.get('Service', 'default/api')?.object as ServiceModel | undefined)?.ports[0]?.port === 82,
    );
    expect(sink.keys('Service')).toEqual(['default/api', 'default/web']);
  });

  it('does not sync while the first read is malformed, and syncs once it is fixed', async () => {
    const path = join(dir, 'cluster.yaml');
    await writeFile(path, 'kind: [');
    const { sink, log } = start(path);
    await eventually('malformed report', () => log.lines.some((l) => l.level === 'error'));
    expect(sink.syncedKinds).toEqual([]);
    await writeFile(path, service('web'));
    await eventually('synced', () => sink.syncedKinds.length === 3);
    expect(sink.keys('Service')).toEqual(['default/web']);
  });

  it('waits for a missing path to appear', async () => {
    const path = join(dir, 'later.yaml');
    const { sink, log } = start(path);
    await eventually('read error', () => log.lines.some((l) => l.level === 'error'));
    expect(sink.syncedKinds).toEqual([]);
    await writeFile(path, service('web'));
    await eventually('synced', () => sink.syncedKinds.length === 3);
  });

  it('stops when aborted', async () => {
    const path = join(dir, 'cluster.yaml');
    await writeFile(path, service('web'));
    const { sink, stop } = start(path);
    await eventually('synced', () => sink.syncedKinds.length === 3);
    await stop();
    await writeFile(path, service('web', 99));
    // Bounded: a stopped source must not deliver, so give a live one ample time to have done so.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(sink.batches).toHaveLength(1);
  });
});
