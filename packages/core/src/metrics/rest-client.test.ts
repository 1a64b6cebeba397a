import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { pathTemplate, registerRestClientMetrics, REST_CLIENT_DURATION_BUCKETS, urlTemplate } from './rest-client.js';

describe('pathTemplate (client-go finalURLTemplate)', () => {
  it.each([
    ['/api/v1/services', '/api/v1/services'],
    ['/api/v1/nodes/node-a', '/api/v1/nodes/{name}'],
    ['/api/v1/nodes/node-a/status', '/api/v1/nodes/{name}/status'],
    ['/api/v1/namespaces/shop/services', '/api/v1/namespaces/{namespace}/services'],
    ['/api/v1/namespaces/shop/services/web', '/api/v1/namespaces/{namespace}/services/{name}'],
    ['/api/v1/namespaces/shop/services/web/status', '/api/v1/namespaces/{namespace}/services/web/status'],
    ['/api/v1/namespaces/shop/finalize', '/api/v1/namespaces/{name}/finalize'],
    ['/apis/discovery.k8s.io/v1/endpointslices', '/apis/discovery.k8s.io/v1/endpointslices'],
    [
      '/apis/discovery.k8s.io/v1/namespaces/shop/endpointslices/web-1',
      '/apis/discovery.k8s.io/v1/namespaces/{namespace}/endpointslices/{name}',
    ],
    ['/version', '/version'],
    ['/healthz/etcd', '/{prefix}'],
  ])('%s -> %s', (path, want) => {
    expect(pathTemplate(path)).toBe(want);
  });

  it('keeps scheme and host and drops the query', () => {
    expect(
      urlTemplate(new URL('https://10.0.0.1:6443/api/v1/nodes?fieldSelector=metadata.name%3Dnode-a&watch=true')),
    ).toBe('https://10.0.0.1:6443/api/v1/nodes');
  });
});

describe('registerRestClientMetrics', () => {
  it('counts by code, method and host and observes latency by verb and host, as current upstream', async () => {
    const registry = new Registry();
    const metrics = registerRestClientMetrics(registry);
    const url = new URL('http://127.0.0.1:8080/api/v1/namespaces/a/services/b?x=1');
    metrics.observe({ method: 'get', url, status: 200, durationSeconds: 0.01 });
    metrics.observe({ method: 'GET', url, status: 200, durationSeconds: 0.2 });
    metrics.observe({ method: 'GET', url, status: undefined, durationSeconds: 3 });
    const text = await registry.metrics();
    expect(text).toContain('rest_client_requests_total{code="200",method="GET",host="127.0.0.1:8080"} 2');
    expect(text).toContain('rest_client_requests_total{code="<error>",method="GET",host="127.0.0.1:8080"} 1');
    expect(text).toContain(
      '# HELP rest_client_request_duration_seconds [ALPHA] Request latency in seconds. Broken down by verb, and host.',
    );
    expect(text).toContain(
      '# HELP rest_client_requests_total [ALPHA] Number of HTTP requests, partitioned by status code, method, and host.',
    );
    const series = 'verb="GET",host="127.0.0.1:8080"';
    expect(text).toContain(`rest_client_request_duration_seconds_bucket{le="0.025",${series}} 1`);
    expect(text).toContain(`rest_client_request_duration_seconds_bucket{le="0.25",${series}} 2`);
    expect(text).toContain(`rest_client_request_duration_seconds_count{${series}} 3`);
  });

  it('uses client-go buckets and can be registered twice on one registry', async () => {
    const registry = new Registry();
    registerRestClientMetrics(registry);
    const again = registerRestClientMetrics(registry);
    again.observe({ method: 'GET', url: new URL('http://h/api/v1/nodes'), status: 500, durationSeconds: 0.001 });
    const text = await registry.metrics();
    const bounds = [...text.matchAll(/^rest_client_request_duration_seconds_bucket\{le="([^"]+)"/gm)].map((m) => m[1]);
    expect(bounds).toEqual([...REST_CLIENT_DURATION_BUCKETS.map(String), '+Inf']);
    expect(text).toContain('rest_client_requests_total{code="500",method="GET",host="h"} 1');
  });
});
