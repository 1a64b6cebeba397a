/**
 * Stale UDP flow cleanup after a successful sync (semantics 4.1), shared by the Linux backends,
 * through the `conntrack` tool (an exec seam, so tests script it and the lab runs it inside a
 * namespace). The flows are listed filtered by destination in the kernel query (one `conntrack -L`
 * per service address and port, and per NodePort), not the whole table, when there are at most
 * {@link MAX_FILTERED_LISTINGS} of them (a partial sync); a sync with more (a full sync of many UDP
 * Services) lists the family's UDP flows once, as upstream does. Then one delete per distinct
 * (service address, port, stale reply source).
 */
import { ExecError, inNetns, type Execer } from '@kpng/kit';
import type { IPFamily, ServiceKey } from '../model/types.js';
import { findService } from '../nodeview/find-service.js';
import type { LocalService } from '../nodeview/types.js';
import type { Logger } from '../util/log.js';
import { deletedCount, parseFlows } from './entries.js';
import { isStale, staleTargets } from './stale.js';

export interface ConntrackCleanupRequest {
  readonly family: IPFamily;
  /** The UDP service ports to check: the Services changed by this sync (all of them on a full sync). */
  readonly services: Iterable<LocalService>;
  readonly isNodePortAddress: (ip: string) => boolean;
}

export interface ConntrackCleaner {
  /** Deletes stale flows; resolves with how many were deleted. */
  clean(request: ConntrackCleanupRequest): Promise<number>;
}

export interface ConntrackToolOptions {
  /** The kit's exec seam (`processExecer` in production). */
  readonly execer: Execer;
  /** Run inside this network namespace. */
  readonly netns?: string;
  readonly conntrackPath?: string;
}

/** What a backend hands `cleanStaleFlows` after a successful sync. */
export interface StaleFlowCleanup {
  /** The node-local state's Services, as the sync programmed them. */
  readonly services: readonly LocalService[];
  /** The Services the sync changed; undefined: every Service (a full sync). */
  readonly updated: ReadonlySet<ServiceKey> | undefined;
  /** The families the sync programmed, each with its NodePort address test (made only when needed). */
  readonly families: readonly { readonly family: IPFamily; nodePortAddresses(): (ip: string) => boolean }[];
  /** Per family, after its flows were cleaned: how many were deleted, in how many seconds. */
  readonly cleaned: (family: IPFamily, deleted: number, seconds: number) => void;
  readonly log: Logger;
}

/**
 * The stale UDP flows of the Services a sync changed (all of them on a full sync), family by family,
 * as every Linux backend cleans them after a successful sync. Nothing is listed when none of those
 * Services has a UDP port. A failure is logged, not thrown: the rules are in place, and a leftover
 * flow only delays the switch to a new endpoint.
 */
export async function cleanStaleFlows(cleaner: ConntrackCleaner, cleanup: StaleFlowCleanup): Promise<void> {
  const { updated } = cleanup;
  const services =
    updated === undefined
      ? cleanup.services
      : [...updated].map((key) => findService(cleanup.services, key)).filter((s) => s !== undefined);
  if (!services.some((svc) => svc.ports.some((p) => p.protocol === 'UDP'))) return;
  for (const { family, nodePortAddresses } of cleanup.families) {
    const started = performance.now();
    try {
      const deleted = await cleaner.clean({ family, services, isNodePortAddress: nodePortAddresses() });
      cleanup.cleaned(family, deleted, (performance.now() - started) / 1000);
    } catch (e) {
      cleanup.log.warn('stale conntrack cleanup failed', { family, error: e instanceof Error ? e.message : String(e) });
    }
  }
}

/** Filtered listings per cleanup, above which one listing of every UDP flow is cheaper. */
export const MAX_FILTERED_LISTINGS = 32;

export class ConntrackTool implements ConntrackCleaner {
  readonly #execer: Execer;
  readonly #prefix: readonly string[];

  constructor(options: ConntrackToolOptions) {
    this.#execer = options.execer;
    this.#prefix = inNetns(options.netns, [options.conntrackPath ?? 'conntrack']);
  }

  async clean(request: ConntrackCleanupRequest): Promise<number> {
    const targets = staleTargets(request.services, request.family);
    if (targets.byAddress.size === 0 && targets.byNodePort.size === 0) return 0;
    const familyArgs = ['-p', 'udp', '-f', request.family === 'IPv4' ? 'ipv4' : 'ipv6'];
    const filters: string[][] = [];
    if (targets.byAddress.size + targets.byNodePort.size <= MAX_FILTERED_LISTINGS) {
      for (const target of targets.byAddress.keys()) {
        const [ip, port] = target.split('|') as [string, string];
        filters.push(['--orig-dst', ip, '--orig-port-dst', port]);
      }
      for (const nodePort of targets.byNodePort.keys()) filters.push(['--orig-port-dst', String(nodePort)]);
    } else {
      filters.push([]);
    }
    const flows = [];
    for (const filter of filters) {
      const argv = [...this.#prefix, '-L', ...familyArgs, ...filter];
      const listing = await this.#execer.run(argv, '');
      if (listing.exitCode !== 0) throw new ExecError(argv, listing);
      for (const flow of parseFlows(listing.stdout)) flows.push(flow);
    }
    const deletes = new Map<string, string[]>();
    for (const flow of flows) {
      if (!isStale(flow, targets, request.isNodePortAddress)) continue;
      const args = [
        '--orig-dst',
        flow.origDst,
        '--orig-port-dst',
        String(flow.origDport),
        '--reply-src',
        flow.replySrc,
        '--reply-port-src',
        String(flow.replySport),
      ];
      deletes.set(args.join(' '), args);
    }
    let deleted = 0;
    for (const args of deletes.values()) {
      // Exit code 1 with "0 flow entries" means the flow expired meanwhile: not an error.
      const result = await this.#execer.run([...this.#prefix, '-D', ...familyArgs, ...args], '');
      deleted += deletedCount(result.stderr);
    }
    return deleted;
  }
}
