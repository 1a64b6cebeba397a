import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import { EXP_BUCKETS, FINE_BUCKETS } from './buckets.js';
import { httpRefusals } from './http-door.js';

/** kpng's own metrics: the model, the state stream and the sync loop, beyond what kube-proxy has. */
export interface KpngMetrics {
  readonly modelEventsTotal: Counter<'kind'>;
  readonly modelRevisionsTotal: Counter;
  readonly modelObjects: Gauge<'kind'>;
  readonly streamClients: Gauge<'api'>;
  readonly streamStatesSentTotal: Counter<'api'>;
  readonly streamRefusedTotal: Counter<'api' | 'reason'>;
  readonly streamRevision: Gauge;
  readonly syncFailuresTotal: Counter<'backend'>;
  readonly syncWriteTimeoutsTotal: Counter<'backend'>;
  readonly syncDriftRepairsTotal: Counter<'backend' | 'kind'>;
  readonly nodeViewDuration: Histogram;
  readonly resyncsTotal: Counter<'result'>;
  readonly networkProgrammingFromEvent: Histogram<'ip_family'>;
  /** Requests the HTTP servers (metrics, healthz, service-health) refused, by server and reason. */
  readonly httpRefusedTotal: Counter<'server' | 'reason'>;
}

export function createKpngMetrics(registry: Registry): KpngMetrics {
  const registers = [registry];
  return {
    modelEventsTotal: new Counter({
      name: 'kpng_model_events_total',
      help: 'API events received by the global model, by object kind',
      labelNames: ['kind'] as const,
      registers,
    }),
    modelRevisionsTotal: new Counter({
      name: 'kpng_model_revisions_total',
      help: 'Revisions of the global model (transactions that changed at least one object hash)',
      registers,
    }),
    modelObjects: new Gauge({
      name: 'kpng_model_objects',
      help: 'Objects held by the global model, by kind',
      labelNames: ['kind'] as const,
      registers,
    }),
    streamClients: new Gauge({
      name: 'kpng_stream_clients',
      help: 'Clients connected to a state stream, by API',
      labelNames: ['api'] as const,
      registers,
    }),
    streamStatesSentTotal: new Counter({
      name: 'kpng_stream_states_sent_total',
      help: 'Complete states sent to stream clients, by API',
      labelNames: ['api'] as const,
      registers,
    }),
    streamRefusedTotal: new Counter({
      name: 'kpng_stream_refused_total',
      help: 'Watch calls a state stream server refused, by API and reason (peer_streams: the peer has as many open as it may; streams: the server has; node_identity: the client certificate does not name the node the request names; slow_client: a call closed because its client did not take a message within its bound, the minimum bytes per window)',
      labelNames: ['api', 'reason'] as const,
      registers,
    }),
    streamRevision: new Gauge({
      name: 'kpng_stream_revision',
      help: 'Latest revision served on the state streams',
      registers,
    }),
    syncFailuresTotal: new Counter({
      name: 'kpng_sync_failures_total',
      help: 'Backend syncs that failed (each is retried as a full sync after syncPeriod)',
      labelNames: ['backend'] as const,
      registers,
    }),
    syncWriteTimeoutsTotal: new Counter({
      name: 'kpng_sync_write_timeouts_total',
      help: 'Backend syncs that failed because a kernel command (nft, iptables-restore, iptables-save) did not finish within the write timeout and was killed; also counted in kpng_sync_failures_total',
      labelNames: ['backend'] as const,
      registers,
    }),
    syncDriftRepairsTotal: new Counter({
      name: 'kpng_sync_drift_repairs_total',
      help: 'Drift repaired by a sync: rules another program removed (kind: table, chain, element, rule), found by the check every syncPeriod or by a full resync',
      labelNames: ['backend', 'kind'] as const,
      registers,
    }),
    nodeViewDuration: new Histogram({
      name: 'kpng_node_view_duration_seconds',
      help: 'Time to recompute the node-local view after a model change, in seconds',
      buckets: [...EXP_BUCKETS],
      registers,
    }),
    resyncsTotal: new Counter({
      name: 'kpng_resyncs_total',
      help: 'Periodic resyncs (configSyncPeriod) of the node view against the model, by result: unchanged, or changed (a drift found and republished)',
      labelNames: ['result'] as const,
      registers,
    }),
    networkProgrammingFromEvent: new Histogram({
      name: 'kpng_network_programming_from_event_seconds',
      help: 'Time from a Service change reaching this process (its watch event, or the state stream for a connected agent; monotonic clock) until the rules for it were applied, one sample per change per family of the Service that the backend programs, in seconds. Unlike kubeproxy_network_programming_duration_seconds it excludes the API side (trigger time, whole seconds, another clock)',
      labelNames: ['ip_family'] as const,
      buckets: [...FINE_BUCKETS],
      registers,
    }),
    httpRefusedTotal: httpRefusals(registry),
  };
}
