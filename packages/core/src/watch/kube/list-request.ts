import { TurnBudget } from '@kpng/kit';
import type { KubeConfig, KubernetesListObject, KubernetesObject } from '@kubernetes/client-node';
import { apiGet, statusError } from './api-request.js';
import { ListBody } from './list-body.js';
import type { RequestRateLimiter } from './request-rate-limiter.js';
import { trimObject } from './trim-object.js';

export { ApiStatusError } from './api-request.js';

/**
 * LIST a collection as raw JSON. The generated API clients would deserialize every item into
 * model classes (Dates instead of strings, renamed fields), so listed objects would differ in shape
 * from watched ones, which arrive as parsed JSON; converting one shape only is simpler and cheaper.
 * The body is parsed item by item as it arrives (`ListBody`): a big list costs many short turns
 * of the event loop, not one long one. `prepare` turns each parsed item into what the list holds
 * (e.g. its conversion: `ListedObject`), so that the raw object is garbage at once.
 */
export async function listRaw<T extends KubernetesObject = KubernetesObject>(
  kc: KubeConfig,
  path: string,
  query: Readonly<Record<string, string | undefined>>,
  signal: AbortSignal,
  limiter?: RequestRateLimiter,
  prepare: (item: KubernetesObject) => T = (item) => item as T,
): Promise<KubernetesListObject<T>> {
  const { url, res } = await apiGet(kc, path, query, signal, limiter);
  if (res.statusCode !== 200) throw await statusError('LIST', url, res);
  const body = new ListBody();
  const items: T[] = [];
  const onItem = (item: unknown): void => void items.push(prepare(trimObject(item as KubernetesObject)));
  res.setEncoding('utf8');
  // Chunks already buffered arrive back to back in one turn: give the event loop one every 10 ms.
  const budget = new TurnBudget(10);
  for await (const chunk of res) {
    body.push(chunk as string, onItem);
    if (budget.due()) await budget.yield();
  }
  return { ...(body.end() as Omit<KubernetesListObject<T>, 'items'>), items };
}
