import type { ModelSink } from '../model/sink.js';

export type { ModelSink };

/** A producer of model events: `kube` (API server), `file` (manifests), `api` (another core). */
export interface Source {
  readonly name: string;
  /** Runs until `signal` aborts. Resolves once stopped. Restarts its own watches on failure. */
  run(sink: ModelSink, signal: AbortSignal): Promise<void>;
}
