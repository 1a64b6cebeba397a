/**
 * `metadata.managedFields` as a real API server stores them on every object (server-side field
 * tracking): one entry per writer, its `fieldsV1` naming every field the writer set, in the
 * `f:`/`k:` notation. The fake API server adds one to each object it stores (when asked) so that
 * clients decode what a real server sends: on a real cluster this is often the biggest part of an
 * EndpointSlice or Service.
 */

/** The writer a real cluster would name for `kind`'s objects. */
const MANAGERS: Readonly<Record<string, string>> = {
  Service: 'kubectl-client-side-apply',
  EndpointSlice: 'kube-controller-manager',
  Node: 'kubelet',
};

/** One managedFields entry for `obj` written by its kind's usual manager at `time`. */
export function managedFieldsFor(
  obj: { readonly kind: string; readonly apiVersion?: string; readonly [field: string]: unknown },
  time: string,
): unknown[] {
  const { kind: _k, apiVersion: _a, metadata, ...rest } = obj as Record<string, unknown>;
  const { name: _n, namespace: _ns, managedFields: _mf, ...meta } = (metadata ?? {}) as Record<string, unknown>;
  return [
    {
      manager: MANAGERS[obj.kind] ?? 'kube-controller-manager',
      operation: 'Update',
      apiVersion: obj.apiVersion ?? 'v1',
      time,
      fieldsType: 'FieldsV1',
      fieldsV1: { ...(Object.keys(meta).length > 0 ? { 'f:metadata': fieldSet(meta) } : {}), ...fieldSet(rest) },
    },
  ];
}

/** `value`'s fields in FieldsV1 notation: `f:name` for a field, `k:{...}` for a keyed list item, `v:` for a set item. */
function fieldSet(value: unknown): Record<string, unknown> {
  if (Array.isArray(value)) {
    const set: Record<string, unknown> = { '.': {} };
    for (const item of value) {
      if (item !== null && typeof item === 'object')
        set[`k:${JSON.stringify(itemKey(item as Record<string, unknown>))}`] = { '.': {}, ...fieldSet(item) };
      else set[`v:${JSON.stringify(item)}`] = {};
    }
    return set;
  }
  if (value === null || typeof value !== 'object') return {};
  const set: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(value)) {
    const inner = fieldSet(field);
    set[`f:${key}`] = field !== null && typeof field === 'object' ? { '.': {}, ...inner } : inner;
  }
  return set;
}

/** A list item's identity as the schema's list-map keys name it: its scalar fields among the usual keys. */
function itemKey(item: Record<string, unknown>): Record<string, unknown> {
  const key: Record<string, unknown> = {};
  for (const name of ['name', 'port', 'protocol', 'type', 'key', 'ip'])
    if (typeof item[name] === 'string' || typeof item[name] === 'number') key[name] = item[name];
  if (Object.keys(key).length === 0)
    for (const [name, v] of Object.entries(item)) if (typeof v !== 'object') key[name] = v;
  return key;
}
