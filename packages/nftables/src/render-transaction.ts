import { elementBody, elementHead } from './objects/element.js';
import { renderObject } from './objects/index.js';
import type { Element } from './objects/types.js';
import type { Operation } from './operation.js';
import type { TurnBudget } from '@kpng/kit';

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
  const lines: string[] = [];
  for (let step = rendering.next(); ; step = rendering.next()) {
    if (step.done === true) return { text: joinLines(lines), ...step.value };
    lines.push(step.value);
  }
}

/** `renderOperations`, giving the event loop a turn whenever `budget` is spent (a full sync writes ~100k operations). */
export async function renderOperationsYielding(
  operations: readonly Operation[],
  options: TransactionRenderOptions,
  budget: TurnBudget,
): Promise<RenderedTransaction> {
  const rendering = renderLines(operations, options);
  const lines: string[] = [];
  for (let step = rendering.next(); ; step = rendering.next()) {
    if (step.done === true) return { text: joinLines(lines), ...step.value };
    lines.push(step.value);
    if (budget.due()) await budget.yield();
  }
}

/** Where each operation went, known once a `StreamedTransaction`'s chunks are all taken. */
export type TransactionLayout = Omit<RenderedTransaction, 'text'>;

export interface StreamedTransaction {
  /** The text in pieces of about `chunkChars` (whole lines, newline-terminated). */
  readonly chunks: AsyncIterable<string>;
  /** The layout of what was rendered; throws until `chunks` is exhausted. */
  layout(): TransactionLayout;
}

const DEFAULT_CHUNK_CHARS = 1 << 16;

/**
 * Renders `operations` (an iterable: a transaction's `ops()` makes deferred objects as it goes)
 * a chunk at a time, so neither the operations nor the text of a full sync need all be in memory:
 * the consumer writes each chunk out before the next is made. Gives the event loop a turn whenever
 * `budget` is spent. An exception from `operations` (an invalid deferred object) ends the chunks
 * with that exception: the consumer must then discard what it wrote.
 */
export function streamOperations(
  operations: Iterable<Operation>,
  options: TransactionRenderOptions,
  budget: TurnBudget,
  chunkChars = DEFAULT_CHUNK_CHARS,
): StreamedTransaction {
  let layout: TransactionLayout | undefined;
  async function* chunks(): AsyncGenerator<string, void, void> {
    const rendering = renderLines(operations, options);
    let pending: string[] = [];
    let size = 0;
    for (let step = rendering.next(); ; step = rendering.next()) {
      if (step.done === true) {
        layout = step.value;
        if (pending.length > 0) yield joinLines(pending);
        return;
      }
      pending.push(step.value);
      size += step.value.length + 1;
      if (size >= chunkChars) {
        yield joinLines(pending);
        pending = [];
        size = 0;
      }
      if (budget.due()) await budget.yield();
    }
  }
  return {
    chunks: chunks(),
    layout: () => {
      if (layout === undefined) throw new Error('the transaction was not rendered to its end');
      return layout;
    },
  };
}

function joinLines(lines: readonly string[]): string {
  return lines.length === 0 ? '' : `${lines.join('\n')}\n`;
}

/**
 * Renders line by line, yielding each line (without its newline) as it is made, so callers decide
 * whether to keep the lines, write them out, or give the event loop a turn. Reads `operations`
 * once, one ahead (to batch consecutive elements), so a stream of operations works as well as an array.
 */
function* renderLines(
  operations: Iterable<Operation>,
  options: TransactionRenderOptions,
): Generator<string, TransactionLayout, void> {
  const lineOperations: number[] = [];
  const lineCounts: number[] = [];
  const operationColumns: number[] = [];
  const maxBatch = options.batchElements === true ? Math.max(1, options.maxBatch ?? DEFAULT_MAX_BATCH) : 1;
  const source = operations[Symbol.iterator]();
  let next = source.next();
  let index = 0;
  while (next.done !== true) {
    const operation = next.value;
    next = source.next();
    if (maxBatch > 1 && batchable(operation) && next.done !== true && sameBatch(operation, next.value)) {
      const head = `${elementHead(operation.object as Element, operation.verb)} { `;
      const bodies: string[] = [];
      const first = index;
      let column = byteLength(head) + 1;
      for (let member = operation; ;) {
        const body = elementBody(member.object as Element, operation.verb);
        operationColumns.push(column);
        column += byteLength(body) + 2;
        bodies.push(body);
        index++;
        if (index - first >= maxBatch || next.done === true || !sameBatch(operation, next.value)) break;
        member = next.value;
        next = source.next();
      }
      lineOperations.push(first);
      lineCounts.push(index - first);
      yield `${head}${bodies.join(', ')} }`;
      continue;
    }
    operationColumns.push(0);
    const verbs =
      operation.verb === 'destroy' && options.emulateDestroy ? (['add', 'delete'] as const) : [operation.verb];
    for (const lineVerb of verbs) {
      lineOperations.push(index);
      lineCounts.push(1);
      yield renderObject(operation.object, lineVerb, options);
    }
    index++;
  }
  return { lineOperations, lineCounts, operationColumns };
}
