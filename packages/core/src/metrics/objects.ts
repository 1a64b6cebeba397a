import { Counter, register } from 'prom-client';
import type { ObjectKind } from '../model/types.js';

export const INVALID_OBJECTS_METRIC = 'kpng_invalid_objects_total';

/**
 * Objects a source skipped because they failed validation, by kind. Lives in prom-client's default
 * registry, which the metrics server exposes. Reused when already registered: a module may be
 * evaluated more than once in one process (test isolation), and a second registration would throw.
 */
function invalidObjectsCounter(): Counter<'kind'> {
  const existing = register.getSingleMetric(INVALID_OBJECTS_METRIC);
  if (existing) return existing as Counter<'kind'>;
  return new Counter({
    name: INVALID_OBJECTS_METRIC,
    help: 'Kubernetes objects (Service, EndpointSlice, Node) skipped because they failed validation.',
    labelNames: ['kind'] as const,
  });
}

export const invalidObjectsTotal: { inc(labels: { kind: ObjectKind }): void } & Pick<Counter<'kind'>, 'get'> =
  invalidObjectsCounter();
