// A complete kpng backend: it "programs" a text file with one line per service port and address
// family (what a kernel backend would turn into rules), rewriting only what changed.
import { rename, rm, writeFile } from 'node:fs/promises';
import { Counter } from 'prom-client';
import {
  defineBackend,
  findService,
  IP_FAMILIES,
  UsageError,
  type Backend,
  type LocalService,
  type SyncRequest,
} from '@kpng/core';

/** render: one Service to its lines. Core already chose the endpoints for each kind of traffic. */
function render(svc: LocalService): string[] {
  return svc.ports.flatMap((port) =>
    IP_FAMILIES.flatMap((family) => {
      const eps = port.endpoints[family];
      if (!eps) return [];
      const target = eps.internal.map((e) => `${e.ip}:${e.port}`).join(',');
      const verdict = target || (eps.hasAnyEndpoints ? 'DROP' : 'REJECT');
      return [`${svc.key} ${family} ${svc.families[family]?.clusterIP}:${port.port}/${port.protocol} -> ${verdict}`];
    }),
  );
}

class ServicesFileBackend implements Backend {
  readonly name = 'services-file';
  readonly families = ['IPv4', 'IPv6'] as const;
  readonly #lines = new Map<string, string[]>(); // what was applied last, per Service
  constructor(
    private readonly path: string,
    private readonly writes: Counter,
  ) {}

  async sync({ state, changes, full }: SyncRequest): Promise<void> {
    // diff: a partial sync re-renders only the Services that changed (absent ones were deleted).
    if (full) this.#lines.clear();
    const keys = full ? state.services.map((s) => s.key) : [...(changes.updatedServices ?? [])];
    for (const key of keys) {
      const svc = findService(state.services, key);
      if (svc) this.#lines.set(key, render(svc));
      else this.#lines.delete(key);
    }
    // apply: atomically (write, then rename), so a failure leaves the previous file in place.
    const text = [...this.#lines.values()].flat().join('\n') + '\n';
    await writeFile(`${this.path}.tmp`, text);
    await rename(`${this.path}.tmp`, this.path);
    this.writes.inc();
  }

  async cleanup(): Promise<void> {
    await rm(this.path, { force: true });
  }
}

export const backend = defineBackend<string>({
  name: 'services-file',
  program: 'kpng-services-file',
  proxyMode: 'services-file',
  summary: 'writes one line per service port and family to a file',
  flags: { out: { type: 'string', value: 'PATH', help: 'the file to write' } },
  parseFlags(values) {
    if (typeof values['out'] !== 'string') throw new UsageError('--out PATH is required');
    return values['out'];
  },
  create(path, ctx) {
    const writes = new Counter({
      name: 'services_file_writes_total',
      help: 'Files written.',
      registers: [ctx.registry],
    });
    return new ServicesFileBackend(path, writes);
  },
});
