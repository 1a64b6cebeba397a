/**
 * A strategic merge patch, reduced to what kpng's overlays use: maps merge recursively, `null`
 * deletes a key, lists of objects listed in MERGE_KEYS merge element by element on their key (an
 * element with `$patch: delete` removes its match), every other list is replaced. Element order
 * follows kustomize (checked against `kubectl kustomize` in kustomize.test.ts).
 */

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

/** patchMergeKey of the Kubernetes list fields kpng's patches touch (from the API's openapi). */
export const MERGE_KEYS: Readonly<Record<string, string>> = {
  containers: 'name',
  initContainers: 'name',
  ephemeralContainers: 'name',
  volumes: 'name',
  volumeMounts: 'mountPath',
  volumeDevices: 'devicePath',
  env: 'name',
  ports: 'containerPort',
  imagePullSecrets: 'name',
  hostAliases: 'ip',
};

export function isObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function strategicMerge(target: Json, patch: Json, path: readonly string[] = []): Json {
  if (!isObject(patch) || !isObject(target)) return clone(patch);
  const out: JsonObject = { ...target };
  for (const [key, value] of Object.entries(patch)) {
    if (key.startsWith('$')) throw new Error(`${[...path, key].join('.')}: directive ${key} is not supported here`);
    if (value === null) {
      delete out[key];
    } else if (Array.isArray(value) && Array.isArray(target[key]) && MERGE_KEYS[key] && value.every(isObject)) {
      out[key] = mergeList(target[key], value, MERGE_KEYS[key], [...path, key]);
    } else if (key in target) {
      out[key] = strategicMerge(target[key]!, value, [...path, key]);
    } else {
      out[key] = strip(clone(value));
    }
  }
  return out;
}

function mergeList(target: Json[], patch: JsonObject[], key: string, path: readonly string[]): Json[] {
  // kustomize's order: the patch's elements first, in the patch's order (merged into their match
  // when there is one), then the target's elements the patch did not name, in their order.
  const rest = target.map(clone);
  const head: Json[] = [];
  for (const item of patch) {
    const id = item[key];
    if (id === undefined) throw new Error(`${path.join('.')}: patch element without merge key ${key}`);
    const at = rest.findIndex((t) => isObject(t) && t[key] === id);
    const match = at >= 0 ? rest.splice(at, 1)[0]! : undefined;
    if (item['$patch'] === 'delete') continue;
    head.push(
      match === undefined ? strip(clone(item)) : strategicMerge(match, item, [...path, `[${key}=${String(id)}]`]),
    );
  }
  return [...head, ...rest];
}

/** New content carries no directives and no nulls. */
function strip(v: Json): Json {
  if (Array.isArray(v)) return v.map(strip);
  if (!isObject(v)) return v;
  const out: JsonObject = {};
  for (const [k, x] of Object.entries(v)) if (x !== null && !k.startsWith('$')) out[k] = strip(x);
  return out;
}

export function clone<T extends Json>(v: T): T {
  return structuredClone(v);
}
