import { Counter, Histogram, type Registry } from 'prom-client';
import { metricsOn } from '@kpng/kit';

/**
 * client-go's API-client metrics (component-base `restclient` adapters), which operators alert on:
 * request rate by status code, and request latency. Observed on core's real calls to the API
 * server (see `watch/kube/instrumented-kubeconfig.ts`).
 */

export const REST_CLIENT_REQUESTS_TOTAL = 'rest_client_requests_total';
export const REST_CLIENT_REQUEST_DURATION = 'rest_client_request_duration_seconds';

/** client-go's latency buckets, bound for bound. */
export const REST_CLIENT_DURATION_BUCKETS: readonly number[] = Object.freeze([
  0.005, 0.025, 0.1, 0.25, 0.5, 1, 2, 4, 8, 15, 30, 60,
]);

/** client-go's code label for a request that got no HTTP response (connection refused, reset, aborted). */
export const NO_RESPONSE_CODE = '<error>';

export interface RestClientRequest {
  /** HTTP method, e.g. `GET`. */
  readonly method: string;
  /** The full request URL, query included: it is templated here, never used as a label as is. */
  readonly url: URL;
  /** HTTP status, or undefined when no response arrived. */
  readonly status: number | undefined;
  /** From sending the request to receiving the response headers (for a watch: to the stream opening). */
  readonly durationSeconds: number;
}

export interface RestClientMetrics {
  observe(request: RestClientRequest): void;
}

/**
 * client-go's `finalURLTemplate`: the path with namespace and object names replaced by
 * `{namespace}` and `{name}`, so the label's cardinality stays bounded. Unlike client-go, query
 * parameters are dropped altogether rather than kept with `{value}` placeholders.
 */
export function urlTemplate(url: URL): string {
  return `${url.protocol}//${url.host}${pathTemplate(url.pathname)}`;
}

export function pathTemplate(path: string): string {
  const segments = path.split('/');
  if (segments.length <= 2) return path;
  // segments[0] is the empty string before the leading slash.
  const group = segments[1];
  const index = group === 'api' ? 3 : group === 'apis' ? 4 : -1;
  if (index < 0) return '/{prefix}';
  const afterGroup = segments.length - index;
  const isSubresource = (s: string | undefined) => s === 'finalize' || s === 'status';
  if (afterGroup === 2) {
    segments[index + 1] = '{name}';
  } else if (afterGroup === 3) {
    segments[index + 1] = isSubresource(segments[index + 2]) ? '{name}' : '{namespace}';
  } else if (afterGroup >= 4) {
    segments[index + 1] = '{namespace}';
    if (!isSubresource(segments[segments.length - 1])) segments[segments.length - 1] = '{name}';
  }
  return segments.join('/');
}

/**
 * Registers the two metrics on `registry` (or reuses them when already there: one registry may be
 * shared by several sources) and returns the observer.
 */
export function registerRestClientMetrics(registry: Registry): RestClientMetrics {
  const metric = metricsOn(registry);
  const requests = metric(Counter, {
    name: REST_CLIENT_REQUESTS_TOTAL,
    help: '[ALPHA] Number of HTTP requests, partitioned by status code, method, and host.',
    labelNames: ['code', 'method', 'host'] as const,
  });
  const duration = metric(Histogram, {
    name: REST_CLIENT_REQUEST_DURATION,
    // Current component-base: by verb and host (the url label was dropped upstream for cardinality).
    help: '[ALPHA] Request latency in seconds. Broken down by verb, and host.',
    labelNames: ['verb', 'host'] as const,
    buckets: [...REST_CLIENT_DURATION_BUCKETS],
  });
  return {
    observe({ method, url, status, durationSeconds }) {
      const verb = method.toUpperCase();
      requests.inc({ code: status === undefined ? NO_RESPONSE_CODE : String(status), method: verb, host: url.host });
      duration.observe({ verb, host: url.host }, Math.max(0, durationSeconds));
    },
  };
}
