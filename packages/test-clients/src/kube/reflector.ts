import type { KubeConfig } from '@kubernetes/client-node';
import { listRaw, watchRaw, type Collection } from '@kpng/core/kube-api';
import { Backoff } from '@kpng/kit';
import { sleep, systemClock, type Clock } from '../util/clock.js';
import { silentLogger, type Logger } from '../util/log.js';
import { ApiError } from './http.js';
import { keyOf, type KubeObject } from './objects.js';
import type { ObjectEvent, ObjectEventType, ObjectStream, StreamHandler } from './stream.js';

export interface ReflectorOptions {
  readonly kubeConfig: KubeConfig;
  /** Collection path, e.g. `/api/v1/namespaces/test/pods`. */
  readonly path: string;
  readonly labelSelector?: string;
  readonly fieldSelector?: string;
  readonly clock?: Clock;
  readonly logger?: Logger;
  /** Restart backoff: doubling from `initialMs` (500) to `maxMs` (30 s). */
  readonly backoff?: { readonly initialMs: number; readonly maxMs: number };
}

interface WatchEnd {
  readonly relist: boolean;
  readonly error?: unknown;
}

/**
 * client-go's reflector, reduced to what the clients need: LIST (every page), then WATCH from the
 * list's resourceVersion, resuming after a closed watch and relisting after 410 Gone (a relist
 * reports what changed meanwhile, deletions included). Each event carries the client-clock time
 * it arrived, which is where the clients' measurements start. The LIST and WATCH requests are the
 * kube source's (`listRaw`, `watchRaw` from `@kpng/core/kube-api`); this class keeps only the
 * clients' loop over them (an object cache that yields deletions on a relist, receive times), which
 * core's informer, built to feed the model, does not offer.
 */
export class Reflector<T extends KubeObject> implements ObjectStream<T> {
  private readonly clock: Clock;
  private readonly logger: Logger;
  private readonly cache = new Map<string, T>();

  constructor(private readonly options: ReflectorOptions) {
    this.clock = options.clock ?? systemClock;
    this.logger = (options.logger ?? silentLogger).with({ path: options.path });
  }

  async run(handler: StreamHandler<T>, signal: AbortSignal): Promise<void> {
    const backoff = new Backoff(this.options.backoff ?? { initialMs: 500, maxMs: 30_000 });
    let resourceVersion: string | undefined;
    let synced = false;
    while (!signal.aborted) {
      try {
        if (resourceVersion === undefined) {
          const list = await listRaw<T>(this.options.kubeConfig, this.collection(), signal);
          this.applyList(list.items, !synced, handler);
          resourceVersion = list.resourceVersion;
          if (!synced) {
            synced = true;
            handler.synced();
          }
        }
        const end = await this.watchOnce(resourceVersion, handler, signal, (rv) => (resourceVersion = rv));
        if (end.relist) resourceVersion = undefined;
        if (end.error !== undefined) throw end.error;
        backoff.reset();
      } catch (error) {
        if (signal.aborted) break;
        const status = statusOf(error);
        if (status === 410) {
          resourceVersion = undefined;
          continue;
        }
        if (status === 403)
          throw error instanceof ApiError ? error : new ApiError(403, `${this.options.path}: forbidden`);
        const delayMs = backoff.next();
        this.logger.warn('list/watch failed; retrying', { error: describe(error), delayMs });
        await sleep(this.clock, delayMs, signal);
      }
    }
  }

  private collection(): Collection {
    const { path, labelSelector, fieldSelector } = this.options;
    return { path, labelSelector, fieldSelector };
  }

  private applyList(items: readonly T[], initial: boolean, handler: StreamHandler<T>): void {
    const receivedAt = this.clock.now();
    const seen = new Set<string>();
    for (const object of items) {
      const key = keyOf(object);
      seen.add(key);
      const previous = this.cache.get(key);
      this.cache.set(key, object);
      if (previous === undefined) handler.event({ type: 'added', object, receivedAt, initial });
      else if (previous.metadata?.resourceVersion !== object.metadata?.resourceVersion) {
        handler.event({ type: 'modified', object, receivedAt, initial });
      }
    }
    for (const [key, object] of [...this.cache]) {
      if (seen.has(key)) continue;
      this.cache.delete(key);
      handler.event({ type: 'deleted', object, receivedAt, initial });
    }
  }

  private watchOnce(
    resourceVersion: string,
    handler: StreamHandler<T>,
    signal: AbortSignal,
    advance: (rv: string) => void,
  ): Promise<WatchEnd> {
    return new Promise<WatchEnd>((resolve) => {
      let relist = false;
      let controller: AbortController | undefined;
      const onAbort = (): void => controller?.abort();
      const done = (error: unknown): void => {
        signal.removeEventListener('abort', onAbort);
        const gone = statusOf(error) === 410;
        resolve({ relist: relist || gone, ...(error && !gone ? { error } : {}) });
      };
      const onEvent = (phase: string, raw: unknown): void => {
        const receivedAt = this.clock.now();
        const object = raw as T;
        if (phase === 'ERROR') {
          if ((object as { code?: number }).code === 410) relist = true;
          return;
        }
        const rv = object?.metadata?.resourceVersion;
        if (rv) advance(rv);
        const type = PHASES[phase];
        if (type === undefined) return; // BOOKMARK
        const key = keyOf(object);
        if (type === 'deleted') this.cache.delete(key);
        else this.cache.set(key, object);
        handler.event({ type, object, receivedAt, initial: false } satisfies ObjectEvent<T>);
      };
      signal.addEventListener('abort', onAbort, { once: true });
      // watchRaw never rejects: a failed request is reported through `ended` (before it returns).
      void watchRaw(this.options.kubeConfig, this.collection(), resourceVersion, {
        opened: () => undefined,
        event: onEvent,
        ended: done,
      }).then((c) => {
        controller = c;
        if (signal.aborted) c.abort();
      });
    });
  }
}

const PHASES: Readonly<Record<string, ObjectEventType>> = { ADDED: 'added', MODIFIED: 'modified', DELETED: 'deleted' };

function statusOf(error: unknown): number | undefined {
  const status = (error as { statusCode?: unknown } | null)?.statusCode;
  return typeof status === 'number' ? status : undefined;
}

function describe(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}
