import { isObject, type Json, type JsonObject } from './strategic-merge.js';

/** A kustomization `images` entry. */
export interface ImageOverride {
  readonly name: string;
  readonly newName?: string;
  readonly newTag?: string;
  readonly digest?: string;
}

const IMAGE_FIELDS = new Set(['name', 'newName', 'newTag', 'digest']);

export function parseImageOverride(v: unknown, where: string): ImageOverride {
  if (!isObject(v as Json) || typeof (v as JsonObject)['name'] !== 'string')
    throw new Error(`${where}: images entries need a name`);
  for (const k of Object.keys(v as JsonObject))
    if (!IMAGE_FIELDS.has(k)) throw new Error(`${where}: images.${k} is not supported`);
  return v as ImageOverride;
}

/** Splits `registry:5000/repo/name:tag@sha256:...` into name, tag and digest. */
export function splitImage(ref: string): { name: string; tag?: string; digest?: string } {
  let rest = ref;
  let digest: string | undefined;
  const at = rest.indexOf('@');
  if (at >= 0) [rest, digest] = [rest.slice(0, at), rest.slice(at + 1)];
  const slash = rest.lastIndexOf('/');
  const colon = rest.lastIndexOf(':');
  let tag: string | undefined;
  if (colon > slash) [rest, tag] = [rest.slice(0, colon), rest.slice(colon + 1)];
  return { name: rest, ...(tag ? { tag } : {}), ...(digest ? { digest } : {}) };
}

/** Applies `images` to every container image under `obj` (any `containers`/`initContainers` list). */
export function applyImages(obj: Json, overrides: readonly ImageOverride[]): Json {
  if (Array.isArray(obj)) return obj.map((x) => applyImages(x, overrides));
  if (!isObject(obj)) return obj;
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(obj)) {
    if ((k === 'containers' || k === 'initContainers') && Array.isArray(v)) {
      out[k] = v.map((c) =>
        isObject(c) && typeof c['image'] === 'string' ? { ...c, image: override(c['image'], overrides) } : c,
      );
    } else {
      out[k] = applyImages(v, overrides);
    }
  }
  return out;
}

function override(image: string, overrides: readonly ImageOverride[]): string {
  const ref = splitImage(image);
  const o = overrides.find((x) => x.name === ref.name);
  if (!o) return image;
  const name = o.newName ?? ref.name;
  if (o.digest) return `${name}@${o.digest}`;
  const tag = o.newTag ?? ref.tag;
  return tag ? `${name}:${tag}` : name;
}
