/** What `registeredOr` needs of a metrics registry (prom-client's `Registry` has it). */
export interface MetricLookup {
  getSingleMetric(name: string): unknown;
}

/**
 * The metric `name` already registered on `registry`, or the one `create` registers there: for
 * metrics that several sources (two backends, a backend restarted in-process) register on one
 * registry, where a second `new Counter` of the same name would throw. Structural, so the kit
 * needs no metrics library.
 */
export function registeredOr<T>(registry: MetricLookup, name: string, create: () => T): T {
  return (registry.getSingleMetric(name) as T | undefined) ?? create();
}
