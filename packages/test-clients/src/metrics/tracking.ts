import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import { FINE_BUCKETS } from './buckets.js';

/** The `measurement` label: which latency a kpng_test_client_* series is about. */
export type MeasurementName =
  | 'pod_ip_address_assigned'
  | 'pod_creation_reachability'
  | 'policy_creation'
  | 'policy_deletion'
  | 'service_programming';

/**
 * kpng's own bookkeeping metrics, next to the upstream histograms (which keep their exact names,
 * buckets and lack of labels). They make visible what upstream loses: targets never reached,
 * targets skipped, every probe attempt by result, clock-skew casualties, and whether the run is over.
 */
export class TrackingMetrics {
  readonly attempts: Counter<'measurement' | 'result'>;
  readonly ticksSkipped: Counter<'measurement'>;
  readonly inFlight: Gauge<'measurement'>;
  readonly unreached: Counter<'measurement' | 'reason'>;
  readonly skipped: Counter<'measurement' | 'reason'>;
  readonly negative: Counter<'measurement'>;
  readonly complete: Gauge<'measurement'>;
  readonly latency: Histogram<'measurement' | 'mode' | 'start'>;

  constructor(registry: Registry) {
    const registers = [registry];
    this.attempts = new Counter({
      name: 'kpng_test_client_probe_attempts_total',
      help: 'Connection attempts, by result: success, mismatch (another server answered), refused, timeout (decided by the dialer, from when the connection started), unreachable, reset, unanswered (the dialer gave no verdict within the timeout plus a grace), or an errno code.',
      labelNames: ['measurement', 'result'],
      registers,
    });
    this.inFlight = new Gauge({
      name: 'kpng_test_client_targets_in_flight',
      help: 'Targets being probed now.',
      labelNames: ['measurement'],
      registers,
    });
    this.ticksSkipped = new Counter({
      name: 'kpng_test_client_probe_ticks_skipped_total',
      help: 'Probe ticks on which no attempt started because ceil(timeout / interval) + 1 attempts of the target were still waiting for the dialer (a dialer behind its requests: the attempt rate backs off instead of piling up).',
      labelNames: ['measurement'],
      registers,
    });
    this.unreached = new Counter({
      name: 'kpng_test_client_targets_unreached_total',
      help: 'Targets whose measurement never completed: deadline (per-target timeout), deleted/removed (target went away), shutdown.',
      labelNames: ['measurement', 'reason'],
      registers,
    });
    this.skipped = new Counter({
      name: 'kpng_test_client_targets_skipped_total',
      help: 'Targets not measured, by reason (pre-existing, beyond-max-targets, no-address, ...).',
      labelNames: ['measurement', 'reason'],
      registers,
    });
    this.negative = new Counter({
      name: 'kpng_test_client_negative_latencies_total',
      help: 'Samples whose start time was after their end time (clock skew against the API server); recorded as 0 in precise mode, as they are in upstream mode.',
      labelNames: ['measurement'],
      registers,
    });
    this.complete = new Gauge({
      name: 'kpng_test_client_complete',
      help: '1 once the measurement is over: every target reached or given up on.',
      labelNames: ['measurement'],
      registers,
    });
    this.latency = new Histogram({
      name: 'kpng_test_client_latency_seconds',
      help: 'Every sample of the upstream histograms again, labelled with the mode and what it was measured from (start), with fine buckets (1 ms to 7000 s, 1-1.5-2-3-5-7 per decade).',
      labelNames: ['measurement', 'mode', 'start'],
      buckets: [...FINE_BUCKETS],
      registers,
    });
  }

  /** Creates the labelled series at zero, so dashboards see them before the first event. */
  init(measurement: MeasurementName): void {
    this.inFlight.set({ measurement }, 0);
    this.complete.set({ measurement }, 0);
    this.unreached.inc({ measurement, reason: 'deadline' }, 0);
    this.negative.inc({ measurement }, 0);
  }
}
