/** Messages both APIs share: map<string, string> entries and ClientIPAffinity; how a decode's steps run. */
import type { TurnBudget } from '@kpng/kit';
import type { SessionAffinity } from '../../model/types.js';
import type { ProtoReader } from './wire/reader.js';

export function readMapEntry(r: ProtoReader, end: number): [string, string] {
  let key = '';
  let value = '';
  while (r.pos < end) {
    const tag = r.varint();
    if (tag === ((1 << 3) | 2)) key = r.string();
    else if (tag === ((2 << 3) | 2)) value = r.string();
    else r.skip(tag & 7);
  }
  r.finish(end);
  return [key, value];
}

export function readAffinity(r: ProtoReader, end: number): SessionAffinity {
  let timeoutSeconds = 0;
  while (r.pos < end) {
    const tag = r.varint();
    if (tag === ((1 << 3) | 0)) timeoutSeconds = r.varint();
    else r.skip(tag & 7);
  }
  r.finish(end);
  return { type: 'ClientIP', timeoutSeconds };
}

/** Runs a decode's steps (one per item read) to the end in this turn. */
export function runSteps<T>(steps: Generator<void, T>): T {
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

/** Runs a decode's steps, yielding to the event loop once `budget` is used, so a big state never holds one turn. */
export async function runStepsInTurns<T>(steps: Generator<void, T>, budget: TurnBudget): Promise<T> {
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
    if (budget.due()) await budget.yield();
  }
}
