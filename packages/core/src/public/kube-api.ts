/**
 * @kpng/core/kube-api: one request to the API server as the kube source makes it (auth and TLS from
 * the kubeconfig, raw JSON or text, a Status error with its message and Retry-After), for programs
 * that read the API themselves (the test clients). Loads no source, model or metrics.
 */
export { ApiStatusError, apiRequest, readBody, statusError } from '../watch/kube/api-request.js';
