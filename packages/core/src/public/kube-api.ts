/**
 * @kpng/core/kube-api: one request to the API server as the kube source makes it (auth and TLS from
 * the kubeconfig, raw JSON or text, a Status error with its message and Retry-After), the kube
 * source's LIST (paged, a 410 on a page restarting it whole) and WATCH (bookmarks, Retry-After
 * kept) of one collection, and its informer over them (`KindInformer`: list, watch, relist, retry
 * rounds), for programs that read the API themselves (the test clients' reflector). Loads no
 * source, model or metrics.
 */
export { ApiStatusError, apiRequest, readBody, statusError } from '../watch/kube/api-request.js';
export {
  LIST_PAGE_SIZE,
  listRaw,
  watchRaw,
  type Collection,
  type ListAnswer,
  type WatchCallbacks,
} from '../watch/kube/requests.js';
export {
  KindInformer,
  kubeRequests,
  type InvalidReport,
  type KindInformerOptions,
  type KindRequests,
} from '../watch/kube/informer.js';
export type { KindAdapter } from '../watch/kube/kinds.js';
export { ReconnectRounds, type BackoffOptions, type ReconnectRoundsOptions } from '../watch/kube/reconnect-rounds.js';
