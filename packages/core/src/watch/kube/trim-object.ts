/**
 * Drops `metadata.managedFields` from a raw object as it is read: the proxy never reads it, and in
 * real clusters it is often the larger part of an object (kube-proxy installs the same transform on
 * its informers). Mutates: the object is fresh from JSON.parse.
 */
export function trimObject<T>(obj: T): T {
  const metadata = (obj as { metadata?: Record<string, unknown> } | null)?.metadata;
  if (metadata && typeof metadata === 'object') delete metadata['managedFields'];
  return obj;
}
