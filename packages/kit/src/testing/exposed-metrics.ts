/** What `exposedMetrics` reads of a registry (prom-client's `Registry` has it). */
export interface MetricsAsJSON {
  getMetricsAsJSON(): Promise<
    readonly {
      readonly name: string;
      readonly help: string;
      readonly type: unknown;
      readonly values: readonly { readonly labels: Readonly<Record<string, unknown>> }[];
    }[]
  >;
}

/**
 * What a registry exposes, one line per metric, sorted by name: `type name{label,...} help`, and a
 * histogram's bucket bounds (`le=...`). The label names are those of the values recorded, so a test
 * that pins a package's metrics records a value under each first. Names, types, labels, help and
 * buckets are what dashboards and alerts read: a test pins them before a refactor touches them.
 */
export async function exposedMetrics(registry: MetricsAsJSON): Promise<string[]> {
  const metrics = await registry.getMetricsAsJSON();
  return [...metrics]
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .map(({ name, help, type, values }) => {
      const labels = new Set<string>();
      const bounds: string[] = [];
      for (const { labels: recorded } of values) {
        for (const label of Object.keys(recorded)) if (label !== 'le') labels.add(label);
        const le = recorded['le'];
        if (le !== undefined && !bounds.includes(String(le))) bounds.push(String(le));
      }
      const buckets = bounds.length > 0 ? ` le=${bounds.join(',')}` : '';
      return `${String(type)} ${name}{${[...labels].sort().join(',')}} ${help}${buckets}`;
    });
}
