import type { IPFamily } from '../model/types.js';
import type { Backend, SyncRequest } from '../sync/backend.js';
import { log } from '../util/log.js';
import { formatState } from './print-state.js';
import type { OutputFormat } from './options.js';

/**
 * `--backend log`: programs nothing; prints each state it would program. Shows what a backend
 * receives, and lets core's sync cadence, health and metrics be watched without a kernel.
 */
export class LogBackend implements Backend {
  readonly name = 'log';
  readonly families: readonly IPFamily[] = ['IPv4', 'IPv6'];

  constructor(
    private readonly format: OutputFormat,
    private readonly write: (text: string) => void = (t) => process.stdout.write(t),
  ) {}

  async sync(req: SyncRequest): Promise<void> {
    const updated = req.full ? 'all' : String(req.changes.updatedServices?.size ?? 'all');
    log.info('sync', { backend: this.name, revision: req.revision, full: req.full, services: req.state.services.length, updated });
    this.write(formatState(req.state, this.format));
  }

  async cleanup(): Promise<void> {}
}
