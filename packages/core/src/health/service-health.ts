import type { Server, ServerResponse } from 'node:http';
import type { ServiceKey } from '../model/types.js';
import { findService } from '../nodeview/find-service.js';
import type { LocalNode, LocalService } from '../nodeview/types.js';
import { toError } from '../util/errors.js';
import { log as defaultLog, type Logger } from '../util/log.js';
import { closeServer, listen, send } from '../metrics/http.js';
import { createHttpDoor, type DoorLimits, type RefusalCounter } from '../metrics/http-door.js';
import { ALL_ADDRESSES, healthCheckAddressesOn, type HealthCheckAddresses } from './health-check-addresses.js';
import type { EventRecorder } from '../events/event-recorder.js';

export interface ServiceHealthServersOptions {
  /** Where each health-check node port listens: `0.0.0.0` by default, or what `nodePortAddresses` selects. */
  readonly addresses?: HealthCheckAddresses;
  readonly log?: Logger;
  /** Upstream's `FailedToStartServiceHealthcheck` Warning on the Service when a port cannot be opened. */
  readonly events?: EventRecorder;
  /** The node's name, for the Event's text. */
  readonly nodeName?: string;
  /** Counts refused requests (`kpng_http_refused_requests_total`, server="service-health"). */
  readonly refused?: RefusalCounter;
  readonly limits?: Partial<DoorLimits>;
}

/** One Service's health-check node port: its listeners and what they report. */
interface ServiceHealthEntry {
  readonly port: number;
  /** The addresses it listens on, joined: a change of the node's addresses reopens it. */
  readonly addresses: string;
  namespace: string;
  name: string;
  localEndpoints: number;
  readonly servers: Server[];
}

const HEADERS = { 'X-Content-Type-Options': 'nosniff' };

/**
 * Per-Service health-check node port servers (observability doc section 6), for Services with
 * `externalTrafficPolicy: Local` and a `healthCheckNodePort`. A load balancer probes the port and
 * sends traffic only to nodes answering 200: the node has local ready endpoints and its proxy is
 * healthy. `sync` reconciles the listeners with the node-local state after every successful sync.
 */
export class ServiceHealthServers {
  private readonly entries = new Map<ServiceKey, ServiceHealthEntry>();
  private readonly addressesOf: (node: LocalNode | undefined) => readonly string[];
  private readonly log: Logger;
  private readonly events: EventRecorder | undefined;
  private readonly nodeName: string;
  private readonly door: Pick<ServiceHealthServersOptions, 'refused' | 'limits' | 'log'>;
  private proxyHealthy: () => boolean = () => true;
  /** Syncs run one after another, so two of them never race to open the same port. */
  private queue: Promise<void> = Promise.resolve();
  /** The addresses (joined) the last complete reconcile used; undefined until one completed. */
  private reconciledOn: string | undefined;
  /** Services whose port could not be opened: tried again at every sync, also a partial one. */
  private failed = new Set<ServiceKey>();

  constructor(opts: ServiceHealthServersOptions = {}) {
    const addresses = opts.addresses ?? ALL_ADDRESSES;
    this.addressesOf = (node) => healthCheckAddressesOn(addresses, node);
    this.log = opts.log ?? defaultLog;
    this.events = opts.events;
    this.nodeName = opts.nodeName ?? '';
    this.door = {
      log: this.log,
      ...(opts.refused ? { refused: opts.refused } : {}),
      ...(opts.limits ? { limits: opts.limits } : {}),
    };
  }

  /**
   * Opens a port for every Service that needs one, closes ports no longer needed and updates the
   * reported counts. A port that cannot be opened is logged and tried again on the next sync.
   * `updated`: the Services whose local form changed since the previous call; only those (and the
   * ports that failed to open) are looked at, so a sync after one change does not walk every
   * Service. Undefined (a full sync), a first call, or other addresses: every Service.
   */
  sync(
    services: readonly LocalService[],
    proxyHealthy: () => boolean,
    node?: LocalNode,
    updated?: ReadonlySet<ServiceKey>,
  ): Promise<void> {
    this.proxyHealthy = proxyHealthy;
    const addresses = this.addressesOf(node);
    return this.serialized(async () => {
      const joined = addresses.join(',');
      const some = updated !== undefined && this.reconciledOn === joined;
      this.reconciledOn = undefined; // until this one completes
      await this.reconcile(services, addresses, some ? new Set([...updated, ...this.failed]) : undefined);
      this.reconciledOn = joined;
    });
  }

  /** Service key -> health-check port, for every port currently served. */
  listening(): ReadonlyMap<ServiceKey, number> {
    return new Map([...this.entries].map(([key, entry]) => [key, entry.port]));
  }

  close(): Promise<void> {
    return this.serialized(async () => {
      const all = [...this.entries.values()];
      this.entries.clear();
      this.reconciledOn = undefined;
      await Promise.all(all.map((entry) => closeAll(entry.servers)));
    });
  }

  /** `keys`: reconcile only these Services (undefined: all of them, and every open port). */
  private async reconcile(
    services: readonly LocalService[],
    addresses: readonly string[],
    keys: ReadonlySet<ServiceKey> | undefined,
  ): Promise<void> {
    const needsPort = (s: LocalService | undefined): s is LocalService =>
      s !== undefined && s.externalPolicyLocal && s.healthCheckNodePort > 0 && addresses.length > 0;
    const wanted = new Map<ServiceKey, LocalService>();
    if (keys === undefined) {
      for (const s of services) if (needsPort(s)) wanted.set(s.key, s);
    } else {
      for (const key of keys) {
        const s = findService(services, key);
        if (needsPort(s)) wanted.set(key, s);
      }
    }
    this.failed = new Set();
    const joined = addresses.join(',');
    const considered =
      keys === undefined ? [...this.entries] : [...keys].map((key) => [key, this.entries.get(key)] as const);
    const stale = considered.filter(
      (pair): pair is [ServiceKey, ServiceHealthEntry] =>
        pair[1] !== undefined &&
        (wanted.get(pair[0])?.healthCheckNodePort !== pair[1].port || pair[1].addresses !== joined),
    );
    for (const [key] of stale) this.entries.delete(key);
    await Promise.all(stale.map(([, entry]) => closeAll(entry.servers)));

    const opening: Promise<void>[] = [];
    for (const [key, svc] of wanted) {
      const entry = this.entries.get(key);
      if (entry) {
        entry.namespace = svc.namespace;
        entry.name = svc.name;
        entry.localEndpoints = svc.localReadyEndpoints;
      } else {
        opening.push(this.open(svc, addresses));
      }
    }
    await Promise.all(opening);
  }

  private async open(svc: LocalService, addresses: readonly string[]): Promise<void> {
    const entry: ServiceHealthEntry = {
      port: svc.healthCheckNodePort,
      addresses: addresses.join(','),
      namespace: svc.namespace,
      name: svc.name,
      localEndpoints: svc.localReadyEndpoints,
      servers: [],
    };
    const results = await Promise.allSettled(
      addresses.map(async (address) => {
        // Every path and method gets the Service's health, as upstream's handler (no mux).
        const server = createHttpDoor({
          name: 'service-health',
          routes: (_req, res) => this.answer(entry, res),
          ...this.door,
        });
        entry.servers.push(server);
        await listen(server, address, entry.port);
      }),
    );
    const failure = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failure) {
      this.log.error('failed to start service health check; retrying at next sync', {
        service: svc.key,
        port: entry.port,
        err: toError(failure.reason),
      });
      // Upstream's text and reason (pkg/proxy/healthcheck service_health.go), on the Service.
      this.events?.record({
        regarding: { kind: 'Service', namespace: svc.namespace, name: svc.name, uid: svc.key },
        type: 'Warning',
        reason: 'FailedToStartServiceHealthcheck',
        action: 'Listen',
        note: `node ${this.nodeName} failed to start healthcheck "${svc.key}" on port ${entry.port}: ${toError(failure.reason).message}`,
      });
      await closeAll(entry.servers);
      this.failed.add(svc.key);
      return;
    }
    this.entries.set(svc.key, entry);
  }

  private answer(entry: ServiceHealthEntry, res: ServerResponse): void {
    const serviceProxyHealthy = this.proxyHealthy();
    const status = entry.localEndpoints > 0 && serviceProxyHealthy ? 200 : 503;
    const body = JSON.stringify({
      service: { namespace: entry.namespace, name: entry.name },
      localEndpoints: entry.localEndpoints,
      serviceProxyHealthy,
    });
    send(res, status, 'application/json', body, HEADERS);
  }

  private serialized(task: () => Promise<void>): Promise<void> {
    const run = this.queue.then(task);
    this.queue = run.catch(() => {});
    return run;
  }
}

function closeAll(servers: readonly Server[]): Promise<unknown> {
  return Promise.all(servers.map((s) => closeServer(s)));
}
