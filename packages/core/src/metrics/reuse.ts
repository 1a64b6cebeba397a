import type { Metric, Registry } from 'prom-client';

/**
 * The metric `name` already registered on `registry`, or the one `create` registers there. For
 * observers that several sources may register on one registry, where a second `new Counter` of the
 * same name would throw.
 */
export function registeredOr<T extends Metric>(registry: Registry, name: string, create: () => T): T {
  return (registry.getSingleMetric(name) as T | undefined) ?? create();
}
