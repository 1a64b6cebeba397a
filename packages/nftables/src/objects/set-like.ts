import { checkName, checkNonNegativeInteger, checkTypeExpression } from '../syntax.js';
import { blockStatements, unquote } from '../tokens.js';
import type { Verb } from '../verbs.js';
import { parseNftDurationSeconds } from '../duration.js';
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
  type RenderContext,
} from './codec.js';
import type { NftMap, NftSet, SetFlag, SetPolicy } from './types.js';

/** Sets and maps share their declaration syntax; maps differ only in the `KEY : VALUE` type. */
type SetLike = NftSet | NftMap;

const SET_VERBS: readonly Verb[] = ['add', 'create', 'delete', 'destroy', 'flush'];
const FLAGS: readonly SetFlag[] = ['constant', 'dynamic', 'interval', 'timeout'];
const POLICIES: readonly SetPolicy[] = ['performance', 'memory'];

function checkDefinition(object: SetLike): string | undefined {
  const isMap = object.kind === 'map';
  if ((object.type === undefined) === (object.typeof === undefined))
    return `${object.kind} ${object.name} needs exactly one of type and typeof`;
  const flags = object.flags ?? [];
  return firstProblem(
    object.type === undefined ? undefined : checkTypeExpression('type', object.type, isMap),
    object.typeof === undefined ? undefined : checkTypeExpression('typeof', object.typeof, isMap),
    flags.find((flag) => !FLAGS.includes(flag)) === undefined
      ? undefined
      : `unknown ${object.kind} flag in ${JSON.stringify(flags)}`,
    new Set(flags).size === flags.length ? undefined : `duplicate ${object.kind} flag in ${JSON.stringify(flags)}`,
    object.timeout === undefined ? undefined : checkNonNegativeInteger('timeout', object.timeout),
    object.gcInterval === undefined ? undefined : checkNonNegativeInteger('gc-interval', object.gcInterval),
    object.size === undefined ? undefined : checkNonNegativeInteger('size', object.size),
    object.policy === undefined || POLICIES.includes(object.policy)
      ? undefined
      : `unknown policy ${JSON.stringify(object.policy)}`,
  );
}

export function validateSetLike(object: SetLike, verb: Verb): string | undefined {
  return firstProblem(
    unsupportedVerb(verb, object.kind, SET_VERBS),
    checkOwner(object),
    checkName(object.kind, object.name),
    // Definitions are checked for every verb: destroy may be emulated as add-then-delete.
    verb === 'delete' || verb === 'flush' ? undefined : checkDefinition(object),
    checkOptionalComment(object.comment),
  );
}

export function renderSetLike(object: SetLike, verb: Verb, ctx: RenderContext): string {
  const head = `${verb} ${object.kind} ${object.family} ${object.table} ${object.name}`;
  if (verb !== 'add' && verb !== 'create') return head;
  const properties = [object.type === undefined ? `typeof ${object.typeof} ;` : `type ${object.type} ;`];
  if (object.flags !== undefined && object.flags.length > 0) properties.push(`flags ${object.flags.join(',')} ;`);
  if (object.timeout !== undefined) properties.push(`timeout ${object.timeout}s ;`);
  if (object.gcInterval !== undefined) properties.push(`gc-interval ${object.gcInterval}s ;`);
  if (object.size !== undefined) properties.push(`size ${object.size} ;`);
  if (object.policy !== undefined) properties.push(`policy ${object.policy} ;`);
  if (object.kind === 'set' && object.autoMerge === true) properties.push('auto-merge ;');
  properties.push(...objectCommentProperty(object.comment, ctx));
  return head + block(properties);
}

export function parseSetLike<K extends SetLike['kind']>(
  kind: K,
  tokens: readonly string[],
): Extract<SetLike, { kind: K }> {
  const base = {
    kind,
    family: parseFamily(tokens[0]),
    table: requireToken(tokens, 1, 'table name'),
    name: requireToken(tokens, 2, `${kind} name`),
  };
  const statements = tokens[3] === '{' ? blockStatements(tokens, 3).statements : [];
  return withSetStatements(base as Extract<SetLike, { kind: K }>, statements);
}

/** Applies declaration statements (`type …`, `flags …`, …) from dumps and listings. */
export function withSetStatements<T extends SetLike>(object: T, statements: readonly (readonly string[])[]): T {
  const result: Record<string, unknown> = { ...object };
  for (const statement of statements) {
    const [keyword, ...rest] = statement;
    const value = rest.join(' ');
    switch (keyword) {
      case 'type':
        result['type'] = value;
        break;
      case 'typeof':
        result['typeof'] = value;
        break;
      case 'flags':
        result['flags'] = value.split(',').map((flag) => flag.trim());
        break;
      case 'timeout':
        result['timeout'] = parseNftDurationSeconds(value);
        break;
      case 'gc-interval':
        result['gcInterval'] = parseNftDurationSeconds(value);
        break;
      case 'size':
        result['size'] = parseInteger(value, 'size');
        break;
      case 'policy':
        result['policy'] = value;
        break;
      case 'auto-merge':
        result['autoMerge'] = true;
        break;
      case 'comment':
        result['comment'] = unquote(value);
        break;
      default:
        throw new Error(`unknown ${object.kind} property ${JSON.stringify(keyword)}`);
    }
  }
  return result as T;
}
