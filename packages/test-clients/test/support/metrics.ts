import type { Registry } from 'prom-client';

/** One sample value of a metric (by exact name, e.g. `foo_count`, and labels), or undefined. */
export async function sampleValue(
  registry: Registry,
  name: string,
  labels: Readonly<Record<string, string>> = {},
): Promise<number | undefined> {
  const base = name.replace(/_(bucket|count|sum)$/, '');
  const metric = registry.getSingleMetric(base) ?? registry.getSingleMetric(name);
  if (!metric) return undefined;
  const data = await metric.get();
  const value = data.values.find(
    (v) =>
      ((v as { metricName?: string }).metricName ?? data.name) === name &&
      Object.entries(labels).every(([k, l]) => String(v.labels[k]) === l),
  );
  return value?.value;
}

/** Sum of a metric's samples with the given exact name whose labels include `labels`. */
export async function sampleSum(
  registry: Registry,
  name: string,
  labels: Readonly<Record<string, string>> = {},
): Promise<number> {
  const base = name.replace(/_(bucket|count|sum)$/, '');
  const metric = registry.getSingleMetric(base) ?? registry.getSingleMetric(name);
  if (!metric) return 0;
  const data = await metric.get();
  return data.values
    .filter(
      (v) =>
        ((v as { metricName?: string }).metricName ?? data.name) === name &&
        Object.entries(labels).every(([k, l]) => String(v.labels[k]) === l),
    )
    .reduce((sum, v) => sum + v.value, 0);
}

/** The `le` bounds of a histogram in Prometheus text, without +Inf. */
export function bucketBounds(text: string, metric: string): number[] {
  const bounds = new Set<number>();
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${metric}_bucket{`)) continue;
    const le = /le="([^"]+)"/.exec(line)?.[1];
    if (le !== undefined && le !== '+Inf') bounds.add(Number(le));
  }
  return [...bounds];
}
