import { existsSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { applyImages, parseImageOverride, type ImageOverride } from './images.js';
import { isObject, strategicMerge, type Json, type JsonObject } from './strategic-merge.js';

/**
 * A kustomize subset, enough to render deploy/kubernetes without the kustomize binary: a
 * kustomization lists `resources` (files or directories holding a kustomization), `patches`
 * (strategic merge patch files, matched on apiVersion, kind, namespace and name) and `images`.
 * Anything else in a kustomization is an error, so an overlay cannot silently rely on a feature
 * this renderer ignores. Output order: resources in the order they are listed, depth first.
 */

export type Resource = JsonObject & { apiVersion: string; kind: string; metadata: JsonObject & { name: string } };

const KUSTOMIZATION_FIELDS = new Set(['apiVersion', 'kind', 'resources', 'patches', 'images']);
const KUSTOMIZATION_FILES = ['kustomization.yaml', 'kustomization.yml', 'Kustomization'];

export function renderKustomization(dir: string): Resource[] {
  return render(resolve(dir), [], resolve(dir));
}

function render(dir: string, stack: readonly string[], top: string): Resource[] {
  if (stack.includes(dir))
    throw new Error(`kustomization cycle: ${[...stack, dir].map((d) => relative(top, d) || '.').join(' -> ')}`);
  const file = KUSTOMIZATION_FILES.map((f) => join(dir, f)).find((f) => existsSync(f));
  if (!file) throw new Error(`${dir}: no kustomization.yaml`);
  const k = loadYaml(file)[0];
  if (!isObject(k ?? null)) throw new Error(`${file}: not a mapping`);
  const kz = k as JsonObject;
  for (const key of Object.keys(kz)) {
    if (!KUSTOMIZATION_FIELDS.has(key)) throw new Error(`${file}: field ${key} is not supported by this renderer`);
  }
  if (kz['kind'] !== undefined && kz['kind'] !== 'Kustomization')
    throw new Error(`${file}: kind must be Kustomization`);

  let out: Resource[] = [];
  for (const entry of list(kz['resources'], `${file}: resources`)) {
    if (typeof entry !== 'string') throw new Error(`${file}: resources entries must be paths`);
    const path = resolve(dir, entry);
    if (!existsSync(path)) throw new Error(`${file}: resource ${entry} does not exist`);
    const docs = statSync(path).isDirectory()
      ? render(path, [...stack, dir], top)
      : loadYaml(path).map((d) => asResource(d, path));
    for (const d of docs) {
      const clash = out.find((r) => resourceId(r) === resourceId(d));
      if (clash) throw new Error(`${file}: ${resourceId(d)} is defined twice`);
      out.push(d);
    }
  }

  for (const p of list(kz['patches'], `${file}: patches`)) {
    if (!isObject(p) || typeof p['path'] !== 'string' || Object.keys(p).some((x) => x !== 'path')) {
      throw new Error(`${file}: patches entries must be {path: FILE} (strategic merge; target is not supported)`);
    }
    for (const patch of loadYaml(resolve(dir, p['path']))) {
      const pr = asResource(patch, p['path']);
      const at = out.findIndex((r) => resourceId(r) === resourceId(pr));
      if (at < 0) throw new Error(`${file}: patch ${p['path']} matches no resource (${resourceId(pr)})`);
      out[at] = asResource(strategicMerge(out[at]!, pr), p['path']);
    }
  }

  const images: ImageOverride[] = list(kz['images'], `${file}: images`).map((i) => parseImageOverride(i, file));
  if (images.length > 0) out = out.map((r) => asResource(applyImages(r, images), file));
  return out;
}

/** `apiVersion/kind/namespace/name`, the identity patches match on. */
export function resourceId(r: Resource): string {
  const ns = typeof r.metadata['namespace'] === 'string' ? r.metadata['namespace'] : '';
  return `${r.apiVersion}/${r.kind}/${ns}/${r.metadata.name}`;
}

export function loadYaml(file: string): Json[] {
  const docs = parseAllDocuments(readFileSync(file, 'utf8'));
  const out: Json[] = [];
  for (const d of docs) {
    if (d.errors.length > 0) throw new Error(`${file}: ${d.errors[0]!.message}`);
    const v = d.toJS() as Json | undefined;
    if (v !== null && v !== undefined) out.push(v);
  }
  return out;
}

function asResource(v: Json, where: string): Resource {
  if (!isObject(v) || typeof v['apiVersion'] !== 'string' || typeof v['kind'] !== 'string') {
    throw new Error(`${where}: a resource needs apiVersion and kind`);
  }
  const md = v['metadata'];
  if (!isObject(md ?? null) || typeof (md as JsonObject)['name'] !== 'string')
    throw new Error(`${where}: a resource needs metadata.name`);
  return v as Resource;
}

function list(v: Json | undefined, where: string): Json[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw new Error(`${where} must be a list`);
  return v;
}
