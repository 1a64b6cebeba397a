import type { KubeConfig } from '@kubernetes/client-node';
import { ApiStatusError, apiRequest, readBody, statusError } from '@kpng/core/kube-api';

/** A non-200 answer from the API server (core's: `statusCode`, the Status message, `retryAfterSeconds`). */
export { ApiStatusError as ApiError };

export type Query = Readonly<Record<string, string | undefined>>;

/**
 * One GET returning parsed JSON. Auth and TLS come from the kubeconfig (`applyToFetchOptions`);
 * the body stays raw JSON (client-node's generated clients would turn timestamps into whole-second
 * Dates, the opposite of what these clients need).
 */
export async function getJson(kc: KubeConfig, path: string, query: Query, signal: AbortSignal): Promise<unknown> {
  return JSON.parse(await getText(kc, path, query, signal, 'application/json')) as unknown;
}

/** One GET returning the body as text (e.g. a pod's /metrics through the API server's proxy). */
export async function getText(
  kc: KubeConfig,
  path: string,
  query: Query,
  signal: AbortSignal,
  accept = '*/*',
): Promise<string> {
  const { url, res } = await apiRequest(kc, 'GET', path, query, signal, undefined, accept);
  if (res.statusCode !== 200) throw await statusError('GET', url, res);
  return readBody(res);
}

/** GET one object; undefined when it does not exist (404). */
export async function getObject<T>(kc: KubeConfig, path: string, signal: AbortSignal): Promise<T | undefined> {
  try {
    return (await getJson(kc, path, {}, signal)) as T;
  } catch (error) {
    if (error instanceof ApiStatusError && error.statusCode === 404) return undefined;
    throw error;
  }
}

export interface ListResult<T> {
  readonly items: readonly T[];
  readonly resourceVersion: string;
}

/** LIST every page (`limit` + `continue`), so large target sets are read completely. */
export async function listAll<T>(
  kc: KubeConfig,
  path: string,
  query: Query,
  signal: AbortSignal,
  pageSize = 500,
): Promise<ListResult<T>> {
  const items: T[] = [];
  let resourceVersion = '';
  let token: string | undefined;
  do {
    const page = (await getJson(kc, path, { ...query, limit: String(pageSize), continue: token }, signal)) as {
      items?: T[] | null;
      metadata?: { resourceVersion?: string; continue?: string };
    };
    items.push(...(page.items ?? []));
    resourceVersion = page.metadata?.resourceVersion ?? resourceVersion;
    token = page.metadata?.continue || undefined;
  } while (token !== undefined);
  return { items, resourceVersion };
}

export function namespacedPath(
  group: 'core' | 'networking.k8s.io/v1' | 'discovery.k8s.io/v1',
  namespace: string,
  plural: string,
  name?: string,
): string {
  const prefix = group === 'core' ? '/api/v1' : `/apis/${group}`;
  const base = `${prefix}/namespaces/${encodeURIComponent(namespace)}/${plural}`;
  return name === undefined ? base : `${base}/${encodeURIComponent(name)}`;
}
