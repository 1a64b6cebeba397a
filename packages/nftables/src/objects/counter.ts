import { checkName, checkNonNegativeInteger } from '../syntax.js';
import { blockStatements, unquote } from '../tokens.js';
import type { Verb } from '../verbs.js';
import {
  block,
  checkOptionalComment,
  checkOwner,
  firstProblem,
  objectCommentProperty,
  parseFamily,
  parseInteger,
  requireToken,
  unsupportedVerb,
  type KindCodec,
} from './codec.js';
import type { Counter } from './types.js';

const COUNTER_VERBS: readonly Verb[] = ['add', 'create', 'delete', 'destroy', 'reset'];

function checkValues(counter: Counter): string | undefined {
  if ((counter.packets === undefined) !== (counter.bytes === undefined))
    return 'a counter needs both packets and bytes, or neither';
  return firstProblem(
    counter.packets === undefined ? undefined : checkNonNegativeInteger('packets', counter.packets),
    counter.bytes === undefined ? undefined : checkNonNegativeInteger('bytes', counter.bytes),
  );
}

export const counterCodec: KindCodec<Counter> = {
  validate(counter, verb) {
    return firstProblem(
      unsupportedVerb(verb, 'counter', COUNTER_VERBS),
      checkOwner(counter),
      checkName('counter', counter.name),
      checkValues(counter),
      checkOptionalComment(counter.comment),
    );
  },

  render(counter, verb, ctx) {
    const head = `${verb} counter ${counter.family} ${counter.table} ${counter.name}`;
    if (verb !== 'add' && verb !== 'create') return head;
    const properties: string[] = [];
    if (counter.packets !== undefined && counter.bytes !== undefined)
      properties.push(`packets ${counter.packets} bytes ${counter.bytes} ;`);
    properties.push(...objectCommentProperty(counter.comment, ctx));
    return head + block(properties);
  },

  parse(tokens) {
    const counter: Counter = {
      kind: 'counter',
      family: parseFamily(tokens[0]),
      table: requireToken(tokens, 1, 'table name'),
      name: requireToken(tokens, 2, 'counter name'),
    };
    return tokens[3] === '{' ? withCounterStatements(counter, blockStatements(tokens, 3).statements) : counter;
  },
};

/** Applies `packets N bytes M` and `comment "…"` statements (dumps and listings). */
export function withCounterStatements(counter: Counter, statements: readonly (readonly string[])[]): Counter {
  let result = counter;
  for (const statement of statements) {
    if (statement[0] === 'packets' && statement[2] === 'bytes') {
      result = {
        ...result,
        packets: parseInteger(statement[1], 'packets'),
        bytes: parseInteger(statement[3], 'bytes'),
      };
    } else if (statement[0] === 'comment') {
      result = { ...result, comment: unquote(requireToken(statement, 1, 'comment')) };
    } else {
      throw new Error(`unknown counter property ${JSON.stringify(statement[0])}`);
    }
  }
  return result;
}
