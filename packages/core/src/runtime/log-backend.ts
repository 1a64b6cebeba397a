import type { IPFamily } from '../model/types.js';
import type { Backend, SyncRequest } from '../sync/backend.js';
import { log } from '../util/log.js';
import { defineBackend } from './backend-module.js';
import { formatState } from './print-state.js';
import { UsageError, type OutputFormat } from './program-options.js';

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
    log.info('sync', {
      backend: this.name,
      revision: req.revision,
      full: req.full,
      services: req.state.services.length,
      updated,
    });
    this.write(formatState(req.state, this.format));
  }

  async cleanup(): Promise<void> {}
}

const FORMATS: readonly OutputFormat[] = ['summary', 'json', 'yaml'];

/** The log backend as a module: `kpng --backend log [--log-format json]`. */
export const logBackend = defineBackend({
  name: 'log',
  program: 'kpng',
  proxyMode: 'log',
  summary: 'prints each node-local state it receives; programs nothing',
  programsKernel: false,
  flags: { 'log-format': { type: 'string', help: 'summary|json|yaml', default: 'summary', value: 'FORMAT' } },
  parseFlags(values): OutputFormat {
    const format = (values['log-format'] ?? 'summary') as OutputFormat;
    if (!FORMATS.includes(format))
      throw new UsageError(`--log-format: must be one of ${FORMATS.join(', ')}, got ${JSON.stringify(format)}`);
    return format;
  },
  create: (format) => new LogBackend(format),
});
