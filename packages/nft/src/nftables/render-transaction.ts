import { elementBody, elementHead } from './objects/element.js';
import { renderObject } from './objects/index.js';
import type { Element } from './objects/types.js';
import type { Operation } from './operation.js';
import type { TurnBudget } from './turn-budget.js';

export interface TransactionRenderOptions {
  readonly objectComments: boolean;
  /** Write `destroy` as `add` + `delete` (nft before 1.0.8 has no `destroy`). */
  readonly emulateDestroy: boolean;
  /**
   * Write consecutive `add`/`create`/`delete` operations on elements of one set or map as one
   * line, `add element ip t s { a, b, c }`: nft evaluates them as one command, much faster than a
   * line each. Errors still map to the operation, by the column nft reports. Default false.
   */
  readonly batchElements?: boolean;
  /** Most elements on one line when batching (default 2048). */
  readonly maxBatch?: number;
}

export interface RenderedTransaction {
  /** nft input, one operation per line (two for an emulated destroy, several for a batch), newline-terminated. */
  readonly text: string;
  /** `lineOperations[i]` is the index of the (first) operation written on line i + 1. */
  readonly lineOperations: readonly number[];
  /** `lineCounts[i]`: how many operations line i + 1 holds (more than 1 only for batched elements). */
  readonly lineCounts: readonly number[];
  /** For each operation on a batched line, the 1-based column (in bytes) where its element starts; 0 otherwise. */
  readonly operationColumns: ArrayLike<number>;
}

const BATCHED_VERBS: ReadonlySet<string> = new Set(['add', 'create', 'delete']);
const DEFAULT_MAX_BATCH = 2048;

/** Whether an operation can start a batch: an add, create or delete of an element. */
function batchable({ verb, object }: Operation): boolean {
  return object.kind === 'element' && BATCHED_VERBS.has(verb);
}

/** Whether `next` joins the batch `first` started: same verb, table and container. */
function sameBatch(first: Operation, next: Operation): boolean {
  const [a, b] = [first.object as Element, next.object];
  return (
    next.verb === first.verb &&
    b.kind === 'element' &&
    b.table === a.table &&
    b.family === a.family &&
    b.set === a.set &&
    b.map === a.map
  );
}

/** Bytes of text as nft counts columns: ASCII unless quoted (a quoted value or a comment). */
function byteLength(text: string): number {
  return text.includes('"') ? Buffer.byteLength(text, 'utf8') : text.length;
}

export function renderOperations(
  operations: readonly Operation[],
  options: TransactionRenderOptions,
): RenderedTransaction {
  const rendering = renderLines(operations, options);
  for (let step = rendering.next(); ; step = rendering.next()) if (step.done === true) return step.value;
}

/** `renderOperations`, giving the event loop a turn whenever `budget` is spent (a full sync writes ~100k operations). */
export async function renderOperationsYielding(
  operations: readonly Operation[],
  options: TransactionRenderOptions,
  budget: TurnBudget,
): Promise<RenderedTransaction> {
  const rendering = renderLines(operations, options);
  for (let step = rendering.next(); ; step = rendering.next()) {
    if (step.done === true) return step.value;
    if (budget.due()) await budget.yield();
  }
}

/** Renders line by line, pausing (`yield`) after each: the callers decide whether to give the event loop a turn. */
function* renderLines(
  operations: readonly Operation[],
  options: TransactionRenderOptions,
): Generator<void, RenderedTransaction, void> {
  const lines: string[] = [];
  const lineOperations: number[] = [];
  const lineCounts: number[] = [];
  const operationColumns = new Int32Array(operations.length);
  const maxBatch = options.batchElements === true ? Math.max(1, options.maxBatch ?? DEFAULT_MAX_BATCH) : 1;
  let index = 0;
  while (index < operations.length) {
    const operation = operations[index] as Operation;
    let end = index + 1;
    if (maxBatch > 1 && batchable(operation)) {
      while (end < operations.length && end - index < maxBatch && sameBatch(operation, operations[end] as Operation))
        end++;
    }
    if (end - index > 1) {
      const head = `${elementHead(operation.object as Element, operation.verb)} { `;
      const bodies: string[] = [];
      let column = byteLength(head) + 1;
      for (let k = index; k < end; k++) {
        const body = elementBody((operations[k] as Operation).object as Element, operation.verb);
        operationColumns[k] = column;
        column += byteLength(body) + 2;
        bodies.push(body);
      }
      lines.push(`${head}${bodies.join(', ')} }`);
      lineOperations.push(index);
      lineCounts.push(end - index);
      index = end;
      yield;
      continue;
    }
    const verbs =
      operation.verb === 'destroy' && options.emulateDestroy ? (['add', 'delete'] as const) : [operation.verb];
    for (const lineVerb of verbs) {
      lines.push(renderObject(operation.object, lineVerb, options));
      lineOperations.push(index);
      lineCounts.push(1);
    }
    index++;
    yield;
  }
  return { text: lines.length === 0 ? '' : `${lines.join('\n')}\n`, lineOperations, lineCounts, operationColumns };
}
