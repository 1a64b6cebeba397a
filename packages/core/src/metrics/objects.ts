import { registeredOr } from '@kpng/kit';
import { Counter, type Registry } from 'prom-client';
import type { ObjectKind } from '../model/types.js';

export const INVALID_OBJECTS_METRIC = 'kpng_invalid_objects_total';

/**
 * Objects a source skipped because they failed validation, by kind. The converters count here
 * wherever they run; the counter belongs to no registry until a program's registry takes it in
 * (`registerInvalidObjects`, done by CoreMetrics), so it is served like every other metric.
 */
const counter = new Counter({
  name: INVALID_OBJECTS_METRIC,
  help: 'Kubernetes objects (Service, EndpointSlice, Node) skipped because they failed validation.',
  labelNames: ['kind'] as const,
  registers: [],
});

export const invalidObjectsTotal: { inc(labels: { kind: ObjectKind }): void } & Pick<Counter<'kind'>, 'get'> = counter;

/** Serves the counter from `registry` (once per registry). */
export function registerInvalidObjects(registry: Registry): void {
  registeredOr(registry, INVALID_OBJECTS_METRIC, () => registry.registerMetric(counter));
}
