import { registeredOr } from '@kpng/kit';
import { Counter, type Registry } from 'prom-client';

export const STREAM_CLIENT_REFUSED_METRIC = 'kpng_stream_client_refused_total';

/**
 * Why a stream client gave up on its server: `idle`, no byte for the idle timeout; `slow`, bytes
 * came but under the minimum per idle timeout and no message completed (a server, or a link, that
 * trickles).
 */
export type StreamClientRefusal = 'idle' | 'slow';

/**
 * State streams a client gave up on, by API and reason. Counted wherever a stream client runs (the
 * backend programs' `--connect`, an agent's `--api`); like `kpng_invalid_objects_total` it belongs
 * to no registry until a program's registry takes it in (`registerStreamClientRefusals`, done by
 * CoreMetrics).
 */
const counter = new Counter({
  name: STREAM_CLIENT_REFUSED_METRIC,
  help: 'State streams a stream client cut and opened again, by API and reason (idle: no byte from the server for the idle timeout; slow: a message in flight progressed under the minimum bytes per idle timeout)',
  labelNames: ['api', 'reason'] as const,
  registers: [],
});

export const streamClientRefusedTotal: {
  inc(labels: { api: 'local' | 'global'; reason: StreamClientRefusal }): void;
} & Pick<Counter<'api' | 'reason'>, 'get'> = counter;

/** Serves the counter from `registry` (once per registry). */
export function registerStreamClientRefusals(registry: Registry): void {
  registeredOr(registry, STREAM_CLIENT_REFUSED_METRIC, () => registry.registerMetric(counter));
}
