import type { Operation } from './operation.js';

/**
 * Stable error codes. Classification reads the errno text nft prints; nft never calls
 * `setlocale`, so those strings are not translated.
 */
export type NftErrorKind = 'not-found' | 'exists' | 'busy' | 'not-supported' | 'invalid' | 'timeout' | 'unknown';

const ERRNO_TEXT: readonly (readonly [string, NftErrorKind])[] = [
  ['No such file or directory', 'not-found'],
  ['File exists', 'exists'],
  ['Device or resource busy', 'busy'],
  ['Operation not supported', 'not-supported'],
];

/** One `<input>:LINE:COL: Error: …` report, mapped back to the operation written on that line. */
export interface NftFailure {
  /** 1-based line of the transaction text; for validation errors, the operation's position. */
  readonly line: number;
  /** 1-based column (bytes) where nft's report starts, when it gave one. */
  readonly column?: number;
  readonly message: string;
  /**
   * The operation nft complained about. On a line holding several (batched elements): the one
   * whose element starts at or before the reported column, else the line's first.
   */
  readonly operationIndex?: number;
  readonly operation?: Operation;
  /** Every operation of a batched line whose column did not single one out (nft blamed the line). */
  readonly operations?: readonly Operation[];
}

/** The operations of a transaction by position: an array, or a `Transaction` (which makes deferred ones again). */
export interface OperationList {
  slice(start: number, end: number): readonly Operation[];
}

/** Where batched lines put their operations (see `RenderedTransaction`). */
export interface LineLayout {
  readonly lineCounts: readonly number[];
  readonly operationColumns: ArrayLike<number>;
}

/** nft names stdin `/dev/stdin` for `-f -` (checked on nft 1.0.6); older releases may differ. */
const POSITION = /^([^\s:]+):(\d+):(\d+)(?:-\d+)?: Error: (.*)$/gm;

export function classifyNftMessage(text: string): NftErrorKind {
  const errorLine = text.split('\n').find((line) => line.includes('Error:')) ?? text;
  return ERRNO_TEXT.find(([errno]) => errorLine.includes(errno))?.[1] ?? 'unknown';
}

/** The failure of a transaction (kernel, nft, or our own validation), with nft's stderr verbatim. */
export class NftError extends Error {
  override readonly name = 'NftError';
  readonly kind: NftErrorKind;
  /** Exactly what nft wrote to stderr (empty for validation errors). */
  readonly stderr: string;
  /** Every positioned error nft reported, in order. */
  readonly failures: readonly NftFailure[];

  constructor(
    message: string,
    kind: NftErrorKind,
    stderr: string,
    failures: readonly NftFailure[] = [],
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.kind = kind;
    this.stderr = stderr;
    this.failures = failures;
  }

  /** The line of the first failing operation in the rendered transaction (1-based). */
  get line(): number | undefined {
    return this.failures[0]?.line;
  }

  /** The first operation nft complained about. */
  get operation(): Operation | undefined {
    return this.failures[0]?.operation;
  }

  /**
   * Wraps nft's stderr. `lineOperations[i]` is the index of the (first) operation written on line
   * i + 1 of the transaction text, so each reported line maps back to its operation; `layout`
   * tells which lines hold several, and where, so a report on a batched line maps to its element.
   */
  static fromNft(
    stderr: string,
    lineOperations: readonly number[] = [],
    operations: OperationList = [],
    layout?: LineLayout,
  ): NftError {
    const failures: NftFailure[] = [];
    for (const match of stderr.matchAll(POSITION)) {
      const line = Number(match[2]);
      const column = Number(match[3]);
      const first = lineOperations[line - 1];
      const count = layout?.lineCounts[line - 1] ?? 1;
      let operationIndex = first;
      let group: readonly Operation[] | undefined;
      if (first !== undefined && count > 1 && layout !== undefined) {
        const hit = batchMember(layout.operationColumns, first, count, column);
        if (hit === undefined) group = operations.slice(first, first + count);
        else operationIndex = hit;
      }
      const operation =
        operationIndex === undefined ? undefined : operations.slice(operationIndex, operationIndex + 1)[0];
      failures.push({
        line,
        column,
        message: match[4] as string,
        ...(operationIndex === undefined ? {} : { operationIndex }),
        ...(operation === undefined ? {} : { operation }),
        ...(group === undefined ? {} : { operations: group }),
      });
    }
    const message = stderr.trim() === '' ? 'nft failed without an error message' : stderr.trimEnd();
    return new NftError(message, classifyNftMessage(stderr), stderr, failures);
  }

  /** A validation failure latched by a transaction. */
  static invalid(reason: string, operationIndex: number, operation: Operation): NftError {
    return new NftError(reason, 'invalid', '', [
      { line: operationIndex + 1, message: reason, operationIndex, operation },
    ]);
  }
}

/** The operation of a batched line whose element starts last at or before `column`. */
function batchMember(columns: ArrayLike<number>, first: number, count: number, column: number): number | undefined {
  let lo = first;
  let hi = first + count - 1;
  if (column < (columns[lo] ?? 0)) return undefined;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if ((columns[mid] ?? 0) <= column) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** nft did not finish within the client's `timeoutMs` and was killed (see `NftClientOptions.timeoutMs`). */
export function isTimeout(error: unknown): boolean {
  return error instanceof NftError && error.kind === 'timeout';
}

export function isNftError(error: unknown): error is NftError {
  return error instanceof NftError;
}

export function isNotFound(error: unknown): boolean {
  return error instanceof NftError && error.kind === 'not-found';
}

export function isAlreadyExists(error: unknown): boolean {
  return error instanceof NftError && error.kind === 'exists';
}
