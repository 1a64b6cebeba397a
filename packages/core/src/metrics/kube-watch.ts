import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import { metricsOn } from '@kpng/kit';

/**
 * The kube source's watch availability, per kind (`Service`, `EndpointSlice`, `Node`): how often a
 * watch had to be opened again, how long it was gone each time, and how long it has been gone now.
 * An operator reads these during an API-server upgrade or an etcd failover: nodes whose watches are
 * down serve their last known state, and changes made meanwhile reach them only once it is back.
 */

export const KUBE_WATCH_RECONNECTS_TOTAL = 'kpng_kube_watch_reconnects_total';
export const KUBE_WATCH_OUTAGE_SECONDS = 'kpng_kube_watch_outage_seconds';
export const KUBE_WATCH_DOWN_SECONDS = 'kpng_kube_watch_down_seconds';

/** From a routine re-watch (milliseconds) to a long control-plane outage (minutes). */
export const KUBE_WATCH_OUTAGE_BUCKETS: readonly number[] = Object.freeze([
  0.01, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 120, 300, 600,
]);

export interface KubeWatchMetrics {
  /** A watch of `kind` is open again after one was lost `downSeconds` ago. */
  reconnected(kind: string, downSeconds: number): void;
  /**
   * At each scrape, `read()` gives how long `kind` has been without an open watch (0 while it has
   * one). Returns the function that stops reporting it (the source stopped).
   */
  reportDownSeconds(kind: string, read: () => number): () => void;
}

/** Who reports each kind's current outage, per registry (so registering twice shares them). */
const downReaders = new WeakMap<Registry, Map<string, () => number>>();

/**
 * Registers the three metrics on `registry` (or reuses them when already there: one registry may
 * be shared by several sources) and returns the observer to hand to the kube source.
 */
export function registerKubeWatchMetrics(registry: Registry): KubeWatchMetrics {
  let readers = downReaders.get(registry);
  if (!readers) {
    readers = new Map();
    downReaders.set(registry, readers);
  }
  const current = readers;
  const metric = metricsOn(registry);
  const reconnects = metric(Counter, {
    name: KUBE_WATCH_RECONNECTS_TOTAL,
    help: 'Watches of the API server opened again after one was lost (routine watch timeouts included), by kind',
    labelNames: ['kind'] as const,
  });
  const outages = metric(Histogram, {
    name: KUBE_WATCH_OUTAGE_SECONDS,
    help: 'Time without an open watch before each reconnect, by kind',
    labelNames: ['kind'] as const,
    buckets: [...KUBE_WATCH_OUTAGE_BUCKETS],
  });
  metric(Gauge, {
    name: KUBE_WATCH_DOWN_SECONDS,
    help: 'Time the kind has been without an open watch of the API server (0 while it has one), by kind',
    labelNames: ['kind'] as const,
    collect(this: Gauge<'kind'>) {
      this.reset();
      for (const [kind, read] of current) this.set({ kind }, read());
    },
  });
  return {
    reconnected(kind, downSeconds) {
      reconnects.inc({ kind });
      outages.observe({ kind }, Math.max(0, downSeconds));
    },
    reportDownSeconds(kind, read) {
      current.set(kind, read);
      return () => {
        if (current.get(kind) === read) current.delete(kind);
      };
    },
  };
}
