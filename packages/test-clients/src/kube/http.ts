import type { KubeConfig } from '@kubernetes/client-node';
import { ApiStatusError, apiRequest, readBody, statusError } from '@kpng/core/kube-api';

/** A non-200 answer from the API server (core's: `statusCode`, the Status message, `retryAfterSeconds`). */
export { ApiStatusError as ApiError };

export type Query = Readonly<Record<string, string | undefined>>;

/**
 * The most a GET's answer may hold (core's `readBody` destroys the response past it, and the GET
 * fails): one object (etcd stores at most 1.5 MiB; JSON leaves room), one pod's metrics text
 * through the API server's proxy. LISTs are core's `listRaw` (paged, parsed item by item).
 */
export const MAX_BODY_BYTES = {
  object: 3 * 1024 * 1024,
  metrics: 16 * 1024 * 1024,
} as const;

/**
 * One GET returning parsed JSON, at most `maxBytes` of it. Auth and TLS come from the kubeconfig
 * (`applyToFetchOptions`); the body stays raw JSON (client-node's generated clients would turn
 * timestamps into whole-second Dates, the opposite of what these clients need).
 */
export async function getJson(
  kc: KubeConfig,
  path: string,
  query: Query,
  signal: AbortSignal,
  maxBytes: number,
): Promise<unknown> {
  return JSON.parse(await getText(kc, path, query, signal, { accept: 'application/json', maxBytes })) as unknown;
}

/** One GET returning the body as text (e.g. a pod's /metrics through the API server's proxy), at most `maxBytes`. */
export async function getText(
  kc: KubeConfig,
  path: string,
  query: Query,
  signal: AbortSignal,
  options: { readonly accept?: string; readonly maxBytes: number },
): Promise<string> {
  const { url, res } = await apiRequest(kc, 'GET', path, query, signal, undefined, options.accept ?? '*/*');
  if (res.statusCode !== 200) throw await statusError('GET', url, res);
  return readBody(res, options.maxBytes);
}

/** GET one object; undefined when it does not exist (404). */
export async function getObject<T>(kc: KubeConfig, path: string, signal: AbortSignal): Promise<T | undefined> {
  try {
    return (await getJson(kc, path, {}, signal, MAX_BODY_BYTES.object)) as T;
  } catch (error) {
    if (error instanceof ApiStatusError && error.statusCode === 404) return undefined;
    throw error;
  }
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
