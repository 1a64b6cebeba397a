/**
 * Drops `metadata.managedFields` from a raw object before client-node's informer caches it: the
 * proxy never reads it, and in real clusters it is often the larger part of an object (kube-proxy
 * installs the same transform on its informers). Mutates: the object is fresh from JSON.parse.
 */
export function trimObject<T>(obj: T): T {
  const metadata = (obj as { metadata?: Record<string, unknown> } | null)?.metadata;
  if (metadata && typeof metadata === 'object') delete metadata['managedFields'];
  return obj;
}

/**
 * Strips a raw object down to what client-node's informer cache reads (`metadata.namespace`,
 * `name`, `resourceVersion`) once it has been converted. Mutates.
 */
export function keepIdentityOnly(obj: unknown): void {
  if (obj === null || typeof obj !== 'object') return;
  const record = obj as Record<string, unknown>;
  const metadata = record['metadata'] as Record<string, unknown> | undefined;
  for (const key of Object.keys(record))
    if (key !== 'metadata' && key !== 'kind' && key !== 'apiVersion') delete record[key];
  if (metadata && typeof metadata === 'object') {
    record['metadata'] = {
      namespace: metadata['namespace'],
      name: metadata['name'],
      resourceVersion: metadata['resourceVersion'],
    };
  }
}
