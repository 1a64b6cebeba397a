import { checkName } from '../syntax.js';
import { blockStatements, unquote } from '../tokens.js';
import type { Verb } from '../verbs.js';
import {
  block,
  checkFamily,
  checkOptionalComment,
  firstProblem,
  objectCommentProperty,
  parseFamily,
  requireToken,
  unsupportedVerb,
  type KindCodec,
} from './codec.js';
import type { Table } from './types.js';

const TABLE_VERBS: readonly Verb[] = ['add', 'create', 'delete', 'destroy', 'flush'];

export const tableCodec: KindCodec<Table> = {
  validate(table, verb) {
    return firstProblem(
      unsupportedVerb(verb, 'table', TABLE_VERBS),
      checkFamily(table.family),
      checkName('table', table.name),
      checkOptionalComment(table.comment),
    );
  },

  render(table, verb, ctx) {
    const head = `${verb} table ${table.family} ${table.name}`;
    if (verb !== 'add' && verb !== 'create') return head;
    return head + block(objectCommentProperty(table.comment, ctx));
  },

  parse(tokens) {
    const family = parseFamily(tokens[0]);
    const name = requireToken(tokens, 1, 'table name');
    let comment: string | undefined;
    if (tokens[2] === '{') {
      for (const statement of blockStatements(tokens, 2).statements) {
        if (statement[0] !== 'comment') throw new Error(`unknown table property ${JSON.stringify(statement[0])}`);
        comment = unquote(requireToken(statement, 1, 'comment'));
      }
    }
    return { kind: 'table', family, name, ...(comment === undefined ? {} : { comment }) };
  },
};
