import type { KubeObject } from '../../src/kube/objects.js';
import type { ObjectEventType, ObjectStream, StreamHandler } from '../../src/kube/stream.js';
import type { Clock } from '../../src/util/clock.js';

/**
 * An ObjectStream the test drives: `initial` objects form the first list, then `emit` delivers
 * live events stamped with the clock's time. `fail(403)` makes `run` reject as a refused watch.
 */
export class FakeStream<T extends KubeObject> implements ObjectStream<T> {
  private handler: StreamHandler<T> | undefined;
  private finish: ((error?: unknown) => void) | undefined;
  private readonly initial: T[] = [];
  private failure: number | undefined;
  runs = 0;

  constructor(private readonly clock: Clock) {}

  /** Objects the first list returns (call before the client runs). */
  list(...objects: T[]): this {
    this.initial.push(...objects);
    return this;
  }

  /** Makes the stream reject with this HTTP status when run. */
  refuse(statusCode: number): this {
    this.failure = statusCode;
    return this;
  }

  get running(): boolean {
    return this.handler !== undefined;
  }

  run(handler: StreamHandler<T>, signal: AbortSignal): Promise<void> {
    this.runs += 1;
    if (this.failure !== undefined)
      return Promise.reject(Object.assign(new Error(`HTTP ${this.failure}`), { statusCode: this.failure }));
    return new Promise<void>((resolve, reject) => {
      this.handler = handler;
      this.finish = (error) => {
        this.handler = undefined;
        if (error === undefined) resolve();
        else reject(error);
      };
      signal.addEventListener('abort', () => this.finish?.(), { once: true });
      const receivedAt = this.clock.now();
      for (const object of this.initial) handler.event({ type: 'added', object, receivedAt, initial: true });
      handler.synced();
    });
  }

  emit(type: ObjectEventType, object: T): void {
    if (!this.handler) throw new Error('the stream is not running');
    this.handler.event({ type, object, receivedAt: this.clock.now(), initial: false });
  }
}
