import type { ObjectKind } from '../../model/types.js';
import { log as defaultLog, type Logger } from '../../util/log.js';
import type { ModelSink, Source } from '../source.js';
import { ChangeWatcher } from './change-watcher.js';
import { DeliveredObjects } from './delivered-objects.js';
import { desiredState } from './desired-state.js';
import { ManifestReader } from './manifest-reader.js';

export interface FileSourceOptions {
  /** A manifest file (YAML or JSON), or a directory of them. */
  readonly path: string;
  /** Fallback poll for changes `fs.watch` misses. Default 1000 ms, as KPNG's file source. */
  readonly pollIntervalMs?: number;
  /** Quiet time after a change notification before re-reading. Default 50 ms. */
  readonly debounceMs?: number;
  /** Read only this Node object (the proxy's own); all Nodes when unset. */
  readonly nodeName?: string;
  readonly log?: Logger;
}

// The kinds reported synced (ServiceCIDRs are optional and read when present; see the global model).
const KINDS: readonly ObjectKind[] = ['Service', 'EndpointSlice', 'Node'];

/**
 * Services, EndpointSlices and Nodes from manifests (`kubectl get -o yaml` output, lists,
 * multi-document YAML, JSON), re-read whenever they change. Each read is turned into the
 * difference from what was delivered before, applied as one batch. Synced after the first
 * complete read; a malformed file, or a file that cannot be read, keeps the last good state.
 */
export class FileSource implements Source {
  readonly name = 'file';
  private readonly log: Logger;

  constructor(private readonly opts: FileSourceOptions) {
    this.log = (opts.log ?? defaultLog).with({ source: 'file', path: opts.path });
  }

  async run(sink: ModelSink, signal: AbortSignal): Promise<void> {
    const watcher = new ChangeWatcher(this.opts.path, {
      pollIntervalMs: this.opts.pollIntervalMs ?? 1000,
      debounceMs: this.opts.debounceMs ?? 50,
    });
    const reader = new ManifestReader(this.opts.path, this.log);
    const delivered = new DeliveredObjects();
    let synced = false;
    try {
      while (!signal.aborted) {
        const since = await watcher.snapshot();
        if (signal.aborted) break;
        synced = (await this.readOnce(reader, delivered, sink, synced)) || synced;
        await watcher.waitForChange(since, signal);
      }
    } finally {
      watcher.close();
    }
  }

  /** One read and delivery; true once the sink holds a complete state. */
  private async readOnce(
    reader: ManifestReader,
    delivered: DeliveredObjects,
    sink: ModelSink,
    synced: boolean,
  ): Promise<boolean> {
    const read = await reader.read();
    if (!read.ok) {
      this.log.error('cannot read manifests, keeping the last good state', { error: read.error });
      return false;
    }
    // Before the first sync, a file that never parsed could hold any part of the cluster: serving
    // without it would program a partial state (REJECTs for Services whose slices are missing).
    if (read.incomplete && !synced) {
      this.log.warn('waiting for every manifest to parse before the initial sync');
      return false;
    }
    const desired = desiredState(read.objects, {
      log: this.log,
      ...(this.opts.nodeName !== undefined ? { nodeName: this.opts.nodeName } : {}),
    });
    const events = delivered.reconcile(desired);
    if (events.length > 0) sink.apply(events);
    if (!synced) for (const kind of KINDS) sink.synced(kind);
    const counts = {
      changes: events.length,
      services: delivered.count('Service'),
      endpointSlices: delivered.count('EndpointSlice'),
      nodes: delivered.count('Node'),
    };
    if (events.length > 0 || !synced) this.log.info('manifests read', counts);
    else this.log.debug(2, 'manifests read, nothing changed', counts);
    return true;
  }
}
