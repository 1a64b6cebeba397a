import { renderObject } from './objects/index.js';
import type { Operation } from './operation.js';

export interface TransactionRenderOptions {
  readonly objectComments: boolean;
  /** Write `destroy` as `add` + `delete` (nft before 1.0.8 has no `destroy`). */
  readonly emulateDestroy: boolean;
}

export interface RenderedTransaction {
  /** nft input, one operation per line (two for an emulated destroy), newline-terminated. */
  readonly text: string;
  /** `lineOperations[i]` is the index of the operation written on line i + 1. */
  readonly lineOperations: readonly number[];
}

export function renderOperations(operations: readonly Operation[], options: TransactionRenderOptions): RenderedTransaction {
  const lines: string[] = [];
  const lineOperations: number[] = [];
  operations.forEach(({ verb, object }, index) => {
    const verbs = verb === 'destroy' && options.emulateDestroy ? (['add', 'delete'] as const) : [verb];
    for (const lineVerb of verbs) {
      lines.push(renderObject(object, lineVerb, options));
      lineOperations.push(index);
    }
  });
  return { text: lines.length === 0 ? '' : `${lines.join('\n')}\n`, lineOperations };
}
