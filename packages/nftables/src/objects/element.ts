import { checkElementPart, checkName, quoted } from '../syntax.js';
import { unquote } from '../tokens.js';
import type { Verb } from '../verbs.js';
import {
  checkOptionalComment,
  checkOwner,
  parseFamily,
  requireToken,
  unsupportedVerb,
  type KindCodec,
} from './codec.js';
import type { Element } from './types.js';

const ELEMENT_VERBS: readonly Verb[] = ['add', 'create', 'delete', 'destroy'];

/** The set or map an element belongs to. */
export function elementContainer(element: Element): string {
  return element.set ?? element.map ?? '';
}

function checkContainer(element: Element): string | undefined {
  if ((element.set === undefined) === (element.map === undefined)) return 'an element needs exactly one of set and map';
  return element.set !== undefined ? checkName('set', element.set) : checkName('map', element.map ?? '');
}

function checkParts(element: Element, verb: Verb): string | undefined {
  if (element.key.length === 0) return 'an element needs a key';
  for (const part of element.key) {
    const problem = checkElementPart(part, false);
    if (problem !== undefined) return problem;
  }
  const value = element.value ?? [];
  if (element.set !== undefined && value.length > 0) return 'a set element cannot have a value';
  // destroy needs the value too: where it is emulated it starts with an add.
  if (element.map !== undefined && value.length === 0 && verb !== 'delete')
    return `${verb} of a map element needs a value`;
  for (const part of value) {
    const problem = checkElementPart(part, true);
    if (problem !== undefined) return problem;
  }
  return undefined;
}

export const elementCodec: KindCodec<Element> = {
  validate(element, verb) {
    return (
      unsupportedVerb(verb, 'element', ELEMENT_VERBS) ??
      checkOwner(element) ??
      checkContainer(element) ??
      checkParts(element, verb) ??
      checkOptionalComment(element.comment)
    );
  },

  render(element, verb) {
    return `${elementHead(element, verb)} { ${elementBody(element, verb)} }`;
  },

  /** Dump lines name the container only, so whether it is a set or a map is told by the value. */
  parse(tokens) {
    const family = parseFamily(tokens[0]);
    const table = requireToken(tokens, 1, 'table name');
    const container = requireToken(tokens, 2, 'set or map name');
    if (tokens[3] !== '{' || tokens[tokens.length - 1] !== '}') throw new Error('expected { ELEMENT }');
    const body = parseElementBody(tokens.slice(4, -1));
    return {
      kind: 'element',
      family,
      table,
      ...(body.value === undefined ? { set: container } : { map: container }),
      key: body.key,
      ...(body.value === undefined ? {} : { value: body.value }),
      ...(body.comment === undefined ? {} : { comment: body.comment }),
    };
  },
};

/** `VERB element FAMILY TABLE CONTAINER`: what every element of one batched line shares. */
export function elementHead(element: Element, verb: Verb): string {
  return `${verb} element ${element.family} ${element.table} ${elementContainer(element)}`;
}

/** What goes between the braces for one element: `KEY [comment "C"] [: VALUE]` (key only for deletes). */
export function elementBody(element: Element, verb: Verb): string {
  const key = concatenation(element.key);
  if (verb !== 'add' && verb !== 'create') return key;
  const comment = element.comment === undefined ? '' : ` comment ${quoted(element.comment)}`;
  const value = element.value === undefined || element.value.length === 0 ? '' : ` : ${concatenation(element.value)}`;
  return key + comment + value;
}

/** `a . b . c` (the common short cases without an array join). */
function concatenation(parts: readonly string[]): string {
  switch (parts.length) {
    case 1:
      return parts[0] as string;
    case 2:
      return `${parts[0]} . ${parts[1]}`;
    case 3:
      return `${parts[0]} . ${parts[1]} . ${parts[2]}`;
    default:
      return parts.join(' . ');
  }
}

export interface ElementBody {
  readonly key: readonly string[];
  readonly value?: readonly string[];
  readonly comment?: string;
}

/**
 * `KEY [. KEY…] [timeout T] [expires T] [comment "C"] [: VALUE [. VALUE…]]`, as tokens. Timeouts
 * and expiry (printed by nft listings for dynamic sets) are state, not definition: skipped.
 */
export function parseElementBody(tokens: readonly string[]): ElementBody {
  const colon = tokens.indexOf(':');
  const left = colon < 0 ? tokens : tokens.slice(0, colon);
  const key: string[] = [];
  let comment: string | undefined;
  for (let i = 0; i < left.length; i++) {
    const token = left[i] as string;
    if (token === 'comment') comment = unquote(requireToken(left, ++i, 'comment'));
    else if (token === 'timeout' || token === 'expires') i++;
    else if (token !== '.') key.push(token);
  }
  if (key.length === 0) throw new Error('element has no key');
  const body: ElementBody = comment === undefined ? { key } : { key, comment };
  return colon < 0 ? body : { ...body, value: parseValue(tokens.slice(colon + 1)) };
}

function parseValue(tokens: readonly string[]): string[] {
  if (tokens[0] === 'jump' || tokens[0] === 'goto') return [tokens.join(' ')];
  const parts = tokens.filter((token) => token !== '.');
  if (parts.length === 0) throw new Error('map element has no value');
  return parts;
}
