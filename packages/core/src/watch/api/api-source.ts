import { TurnBudget } from '@kpng/kit';
import type { GlobalSnapshot } from '../../model/global-model.js';
import {
  nodeName,
  serviceKey,
  sliceKey,
  type ModelEvent,
  type ObjectKind,
  type ServiceKey,
} from '../../model/types.js';
import type { WatchOptions } from '../../stream/client/client.js';
import { log as defaultLog, type Logger } from '../../util/log.js';
import type { ModelSink, Source } from '../source.js';
import { reportInvalid } from '../convert/report.js';
import { nodeProblems, serviceCIDRProblems, serviceProblems, sliceProblems } from '../convert/validate.js';

export interface ApiSourceOptions {
  /** The central core's global stream: `host:port` or `unix:///path`. */
  readonly address: string;
  /** This node's name, sent to the central core, which checks it against the client certificate (with mutual TLS). */
  readonly nodeName?: string;
  readonly watch?: Omit<WatchOptions, 'signal'>;
  readonly log?: Logger;
  /** Milliseconds of checks per event-loop turn while a state is checked (default 10); 0 yields every 16 objects (tests). */
  readonly turnBudgetMs?: number;
}

/**
 * The `api` source (central-core mode): consumes another core's global model and feeds this
 * process's model with it. Each complete state is turned into upserts for the objects whose
 * decoded form changed (the client keeps unchanged objects identical) and deletes for the ones
 * that vanished, so the local model and its revisions move only with real changes.
 *
 * Each changed object passes the checks an API object passes (`watch/convert/validate.ts`) before
 * it reaches the model: one that fails is reported as an invalid API object is (a warning and
 * `kpng_invalid_objects_total{kind}`) and skipped, and the version delivered before it stays.
 *
 * A state is checked a 10 ms budget of work per event-loop turn (the stream client decodes it the
 * same way), so the program's health and metrics keep answering while a first state of 10,000
 * Services arrives. Later states are one model transaction each; the first one, which nobody is
 * served before it completes, enters the model in transactions of `APPLY_CHUNK` events, one per turn.
 */
export class ApiSource implements Source {
  readonly name = 'api';
  readonly #delivered = new Map<string, unknown>();
  /** The last version of each object refused, so that a state repeating it does not report it again. */
  readonly #refused = new Map<string, unknown>();

  constructor(private readonly options: ApiSourceOptions) {}

  async run(sink: ModelSink, signal: AbortSignal): Promise<void> {
    const log = (this.options.log ?? defaultLog).with({ source: 'api', address: this.options.address });
    let synced = false;
    // gRPC is loaded only by a program that reads a global stream (`--api`).
    const { watchGlobalState } = await import('../../stream/client/client.js');
    await watchGlobalState(
      this.options.address,
      async (snapshot, info) => {
        const budget = new TurnBudget(this.options.turnBudgetMs ?? 10);
        const events = await this.#diff(snapshot, info.changes.triggerTimes, budget);
        log.debug(2, 'global state received', { revision: info.revision, events: events.length, full: info.full });
        if (synced) {
          // One transaction: the node view never sees half a state.
          if (events.length > 0) sink.apply(events);
          return;
        }
        // The first state (every object): nothing is served before every kind has synced, so it
        // enters the model in transactions of a few ms each, a turn apiece, as the kube source's
        // initial lists do.
        for (let from = 0; from < events.length; from += APPLY_CHUNK) {
          if (from > 0) await budget.yield();
          if (signal.aborted) return;
          sink.apply(events.slice(from, from + APPLY_CHUNK));
        }
        synced = true;
        for (const kind of ['Service', 'EndpointSlice', 'Node', 'ServiceCIDR'] as const) sink.synced(kind);
      },
      {
        ...this.options.watch,
        ...(this.options.nodeName !== undefined ? { nodeName: this.options.nodeName } : {}),
        signal,
      },
    );
  }

  /**
   * The events that bring the model from the objects delivered so far to `snapshot`: each object
   * checked once per version, a `budget` of checks per event-loop turn (a first state holds every
   * object of the cluster).
   * `triggerTimes`: per Service, carried over to its changed slices so node agents observe programming latency too.
   */
  async #diff(
    snapshot: GlobalSnapshot,
    triggerTimes: ReadonlyMap<ServiceKey, readonly number[]>,
    budget: TurnBudget,
  ): Promise<ModelEvent[]> {
    const events: ModelEvent[] = [];
    const seen = new Set<string>();
    const visit = <T>(id: string, object: T, problems: (o: T) => readonly string[], upsert: () => ModelEvent) => {
      seen.add(id);
      if (this.#delivered.get(id) === object || this.#refused.get(id) === object) return;
      const found = problems(object);
      if (found.length > 0) {
        this.#refused.set(id, object);
        reportInvalid(id.slice(0, id.indexOf('/')) as ObjectKind, `global stream: ${id.slice(0, 300)}`, found);
        return;
      }
      this.#refused.delete(id);
      this.#delivered.set(id, object);
      events.push(upsert());
    };
    for (const s of snapshot.services) {
      const key = serviceKey(s.namespace, s.name);
      visit(`Service/${key}`, s, serviceProblems, () => ({ kind: 'Service', op: 'upsert', key, object: s }));
      await budget.maybeYield();
    }
    for (const s of snapshot.endpointSlices) {
      const key = sliceKey(s.namespace, s.name);
      const triggerTime = latest(triggerTimes.get(serviceKey(s.namespace, s.serviceName)));
      visit(`EndpointSlice/${key}`, s, sliceProblems, () => ({
        kind: 'EndpointSlice',
        op: 'upsert',
        key,
        object: s,
        ...(triggerTime !== undefined ? { triggerTime } : {}),
      }));
      await budget.maybeYield();
    }
    for (const n of snapshot.nodes) {
      visit(`Node/${n.name}`, n, nodeProblems, () => ({
        kind: 'Node',
        op: 'upsert',
        key: nodeName(n.name),
        object: n,
      }));
      await budget.maybeYield();
    }
    for (const c of snapshot.serviceCIDRs) {
      visit(`ServiceCIDR/${c.name}`, c, serviceCIDRProblems, () => ({
        kind: 'ServiceCIDR',
        op: 'upsert',
        key: c.name,
        object: c,
      }));
      await budget.maybeYield();
    }
    for (const id of [...this.#refused.keys()]) if (!seen.has(id)) this.#refused.delete(id);
    for (const id of [...this.#delivered.keys()]) {
      if (seen.has(id)) continue;
      this.#delivered.delete(id);
      const slash = id.indexOf('/');
      const kind = id.slice(0, slash) as ObjectKind;
      const key = id.slice(slash + 1);
      events.push({ kind, op: 'delete', key } as ModelEvent);
    }
    return events;
  }
}

/** Events per model transaction while the first state is applied (a few ms of work each at most). */
const APPLY_CHUNK = 256;

/** The newest of `times` (a loop: spreading a list of any length into `Math.max` can overflow the stack). */
function latest(times: readonly number[] | undefined): number | undefined {
  if (times === undefined || times.length === 0) return undefined;
  let max = times[0]!;
  for (const t of times) if (t > max) max = t;
  return max;
}
