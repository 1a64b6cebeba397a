import { checkComment, checkName, quoted } from '../syntax.js';
import type { Verb } from '../verbs.js';
import { FAMILIES, type Family, type NftObject } from './types.js';

/** Host capabilities that change how operations are written. */
export interface RenderContext {
  /** False on hosts whose kernel refuses table/chain/set/map/counter comments: they are dropped. */
  readonly objectComments: boolean;
}

export const DEFAULT_RENDER_CONTEXT: RenderContext = { objectComments: true };

/** What each object kind module provides; `objects/index.ts` dispatches on `kind`. */
export interface KindCodec<T extends NftObject> {
  /** Why `verb` cannot be applied to `object`, or undefined when it can. */
  validate(object: T, verb: Verb): string | undefined;
  /** The operation as exactly one line of nft syntax, without the newline. */
  render(object: T, verb: Verb, ctx: RenderContext): string;
  /** Parses the tokens that follow `add <kind>` in a rendered `add` line. */
  parse(tokens: readonly string[], text: string): T;
}

export function firstProblem(...problems: readonly (string | undefined)[]): string | undefined {
  return problems.find((problem) => problem !== undefined);
}

export function checkFamily(family: Family): string | undefined {
  return FAMILIES.includes(family) ? undefined : `unknown family ${JSON.stringify(family)}`;
}

export function checkOwner(object: { readonly family: Family; readonly table: string }): string | undefined {
  return checkFamily(object.family) ?? checkName('table', object.table);
}

export function checkOptionalComment(comment: string | undefined): string | undefined {
  return comment === undefined ? undefined : checkComment(comment);
}

export function unsupportedVerb(verb: Verb, kind: string, supported: readonly Verb[]): string | undefined {
  return supported.includes(verb) ? undefined : `${verb} is not supported for ${kind}s (only ${supported.join(', ')})`;
}

/** ` comment "x" ;` inside an object's `{ }` block, or nothing. */
export function objectCommentProperty(comment: string | undefined, ctx: RenderContext): string[] {
  return comment !== undefined && ctx.objectComments ? [`comment ${quoted(comment)} ;`] : [];
}

/** ` { a ; b ; }` from properties already ending in ` ;`, or nothing when there are none. */
export function block(properties: readonly string[]): string {
  return properties.length === 0 ? '' : ` { ${properties.join(' ')} }`;
}

export function parseFamily(token: string | undefined): Family {
  if (token === undefined || !FAMILIES.includes(token as Family))
    throw new Error(`unknown family ${JSON.stringify(token)}`);
  return token as Family;
}

export function requireToken(tokens: readonly string[], index: number, what: string): string {
  const token = tokens[index];
  if (token === undefined) throw new Error(`missing ${what}`);
  return token;
}

export function parseInteger(token: string | undefined, what: string): number {
  if (token === undefined || !/^-?\d+$/.test(token))
    throw new Error(`${what} must be an integer, got ${JSON.stringify(token)}`);
  return Number(token);
}
