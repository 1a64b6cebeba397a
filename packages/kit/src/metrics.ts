/** What the metric helpers need of a metrics registry (prom-client's `Registry` has it). */
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

/** A metric class (prom-client's `Counter`, `Gauge`, `Histogram`), made from its configuration. */
export type MetricClass<R, C, M> = new (configuration: C & { registers: R[] }) => M;

/** Declares one metric on the registry `metricsOn` was given: see there. */
export type DeclareMetric<R> = <C extends { readonly name: string }, M>(
  kind: MetricClass<R, C, M>,
  configuration: C,
) => M;

/**
 * The one way a package declares its metrics: `const metric = metricsOn(registry)`, then
 * `metric(Counter, { name, help, labelNames })` is the metric of that name already on the registry
 * (another backend, or this one restarted in-process, declared it), or a new one of that class with
 * that configuration, registered on that registry alone. Each declaration says only what is its own:
 * its class, name, help, labels, buckets (or `collect`).
 */
export function metricsOn<R extends MetricLookup>(registry: R): DeclareMetric<R> {
  return (kind, configuration) =>
    registeredOr(registry, configuration.name, () => new kind({ ...configuration, registers: [registry] }));
}
