import type { KubeConfig } from '@kubernetes/client-node';
import { KindInformer, kubeRequests, ReconnectRounds, type KindInformerOptions } from '@kpng/core/kube-api';
import { systemClock, type Clock } from '../util/clock.js';
import { silentLogger, type Logger } from '../util/log.js';
import { keyOf, type KubeObject } from './objects.js';
import type { ObjectStream, StreamHandler } from './stream.js';

export interface ReflectorOptions {
  readonly kubeConfig: KubeConfig;
  /** Collection path, e.g. `/api/v1/namespaces/test/pods`. */
  readonly path: string;
  /** The kind the path holds (its logs name it). */
  readonly kind: KindInformerOptions['adapter']['kind'];
  readonly labelSelector?: string;
  readonly fieldSelector?: string;
  readonly clock?: Clock;
  readonly logger?: Logger;
  /**
   * Restart schedule after a failed LIST or WATCH, from `initialMs` to `maxMs`, in place of the kube
   * source's (client-go's reflector backoff after error answers, 200-400 ms while nothing answers).
   */
  readonly backoff?: { readonly initialMs: number; readonly maxMs: number };
}

/** What the informer emits for one object: it is here (`gone` false), or it went. */
interface Change<T> {
  readonly gone: boolean;
  readonly object: T;
}

/** How long one LIST may take before it is retried (the kube source's default). */
const LIST_TIMEOUT_MS = 60_000;

/**
 * A list+watch of one collection through the kube source's own informer (`KindInformer` from
 * `@kpng/core/kube-api`: paged LIST, WATCH with bookmarks, resume, relist after 410 Gone with the
 * deletions of what vanished meanwhile, retry rounds), with an adapter that keeps each raw object.
 * This class adds what the clients measure with: each event is stamped with the client-clock time
 * it arrived (where the clients' measurements start), said to be an addition or a modification,
 * and marked `initial` when it was part of the first LIST. A 403 (missing RBAC) ends `run` with
 * that error instead of being retried forever.
 */
export class Reflector<T extends KubeObject> implements ObjectStream<T> {
  private readonly clock: Clock;
  private readonly logger: Logger;

  constructor(private readonly options: ReflectorOptions) {
    this.clock = options.clock ?? systemClock;
    this.logger = (options.logger ?? silentLogger).with({ path: options.path });
  }

  run(handler: StreamHandler<T>, signal: AbortSignal): Promise<void> {
    if (signal.aborted) return Promise.resolve();
    const { kubeConfig, path, labelSelector, fieldSelector, backoff } = this.options;
    const clock: KindInformerOptions['clock'] = {
      now: () => this.clock.now(),
      monotonic: () => this.clock.now(), // this package's clock is monotonic already
      setTimeout: (fn, ms) => this.clock.setTimeout(fn, ms),
    };
    const rounds = new ReconnectRounds(clock, backoff ? { answered: backoff, unreachable: backoff } : {});
    const present = new Set<string>();
    let synced = false;
    return new Promise<void>((resolve, reject) => {
      const informer = new KindInformer<Change<T>, Change<T>>({
        adapter: {
          kind: this.options.kind,
          keyOf: (raw) => keyOf(raw as T),
          toUpsert: (raw) => ({ ok: true, value: { gone: false, object: raw as T } }),
        },
        deletionOf: ({ object }) => ({ gone: true, object }),
        requests: kubeRequests(
          kubeConfig,
          { path, labelSelector, fieldSelector },
          {
            stopping: signal,
            listTimeoutMs: LIST_TIMEOUT_MS,
          },
        ),
        // Called as each object arrives (a LIST's once the whole LIST is in): its receive time.
        emit: (convert) => {
          const receivedAt = this.clock.now();
          const change = convert();
          if (change === undefined) return;
          const key = keyOf(change.object);
          const type = change.gone ? 'deleted' : present.has(key) ? 'modified' : 'added';
          if (change.gone) present.delete(key);
          else present.add(key);
          handler.event({ type, object: change.object, receivedAt, initial: !synced });
        },
        onSynced: () => {
          synced = true;
          handler.synced();
        },
        stopping: signal,
        clock,
        logger: coreLogger(this.logger),
        rounds,
        report: () => undefined, // every object is accepted as it is
        fatal: (error) => {
          if ((error as { statusCode?: unknown } | null)?.statusCode !== 403) return false;
          finish(() => reject(error));
          return true;
        },
      });
      function finish(settle: () => void): void {
        signal.removeEventListener('abort', onAbort);
        rounds.cancel();
        void informer.stop().then(settle);
      }
      function onAbort(): void {
        finish(resolve);
      }
      signal.addEventListener('abort', onAbort, { once: true });
      void informer.start();
    });
  }
}

/** Core's logger shape over this package's (core's debug verbosity levels are all `debug` here). */
function coreLogger(logger: Logger): KindInformerOptions['logger'] {
  return {
    info: (msg, fields) => logger.info(msg, fields),
    warn: (msg, fields) => logger.warn(msg, fields),
    error: (msg, fields) => logger.error(msg, fields),
    debug: (_level, msg, fields) => logger.debug(msg, fields),
    with: (fields) => coreLogger(logger.with(fields)),
  };
}
