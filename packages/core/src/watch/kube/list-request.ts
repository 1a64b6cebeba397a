import type { KubeConfig, KubernetesListObject, KubernetesObject } from '@kubernetes/client-node';
import { apiGet, readBody, statusError } from './api-request.js';
import { trimObject } from './trim-object.js';

export { ApiStatusError } from './api-request.js';

/**
 * LIST a collection as raw JSON. The generated API clients would deserialize every item into
 * model classes (Dates instead of strings, renamed fields), so listed objects would differ in shape
 * from watched ones, which arrive as parsed JSON; converting one shape only is simpler and cheaper.
 */
export async function listRaw(
  kc: KubeConfig,
  path: string,
  query: Readonly<Record<string, string | undefined>>,
  signal: AbortSignal,
): Promise<KubernetesListObject<KubernetesObject>> {
  const { url, res } = await apiGet(kc, path, query, signal);
  if (res.statusCode !== 200) throw await statusError('LIST', url, res);
  const list = JSON.parse(await readBody(res)) as KubernetesListObject<KubernetesObject>;
  for (const item of list.items ?? []) trimObject(item);
  return list;
}
