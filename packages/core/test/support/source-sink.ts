import type { ModelEvent, ObjectKind } from '../../src/model/types.js';
import type { LogFields, Logger } from '../../src/util/log.js';
import type { ModelSink, Source } from '../../src/watch/source.js';

/** Test helpers for sources: a sink that keeps the model it was given, a logger that keeps lines. */

type Upsert = Extract<ModelEvent, { op: 'upsert' }>;

export class RecordingSink implements ModelSink {
  readonly batches: (readonly ModelEvent[])[] = [];
  readonly syncedKinds: ObjectKind[] = [];
  private readonly model = new Map<string, Upsert>();

  apply(events: readonly ModelEvent[]): void {
    this.batches.push(events);
    for (const e of events) {
      if (e.op === 'upsert') this.model.set(`${e.kind} ${e.key}`, e);
      else if (!this.model.delete(`${e.kind} ${e.key}`)) throw new Error(`delete of unknown ${e.kind} ${e.key}`);
    }
  }

  synced(kind: ObjectKind): void {
    this.syncedKinds.push(kind);
  }

  /** Keys currently held for `kind`, sorted. */
  keys(kind: ObjectKind): string[] {
    return [...this.model.values()]
      .filter((e) => e.kind === kind)
      .map((e) => e.key)
      .sort();
  }

  get(kind: ObjectKind, key: string): Upsert | undefined {
    return this.model.get(`${kind} ${key}`);
  }
}

export interface LoggedLine {
  readonly level: string;
  readonly msg: string;
  readonly fields: LogFields;
}

export function capturingLogger(lines: LoggedLine[] = [], base: LogFields = {}): Logger & { lines: LoggedLine[] } {
  const emit = (level: string) => (msg: string, fields?: LogFields) =>
    lines.push({ level, msg, fields: { ...base, ...fields } });
  return {
    lines,
    info: emit('info'),
    warn: emit('warn'),
    error: emit('error'),
    debug: (_v, msg, fields) => emit('debug')(msg, fields),
    with: (fields) => capturingLogger(lines, { ...base, ...fields }),
  };
}

/** Polls `condition` until it holds; fails after `timeoutMs` with `what` in the message. */
export async function eventually(what: string, condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Runs `source` into a fresh RecordingSink until `stop()`. */
export function runSource(source: Source): { sink: RecordingSink; stop(): Promise<void> } {
  const sink = new RecordingSink();
  const controller = new AbortController();
  const running = source.run(sink, controller.signal);
  return {
    sink,
    async stop() {
      controller.abort();
      await running;
    },
  };
}
