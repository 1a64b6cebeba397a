import { RESERVED_WORDS } from './reserved-words.js';

/**
 * The lexical rules that keep every rendered operation on exactly one line and make it impossible
 * for a name, comment or element to smuggle extra nft syntax into a transaction. Each check
 * returns the reason for refusal, or undefined when the text is acceptable.
 */

/** nft's own limits: names are NFT_NAME_MAXLEN (256) with the NUL; comments 128 bytes. */
export const MAX_NAME_BYTES = 255;
export const MAX_COMMENT_BYTES = 128;

/** nft's bare identifier (`string` in scanner.l), minus a leading `.`, which can lex as DOT. */
const NAME = /^[A-Za-z_][A-Za-z0-9_./-]*$/;
const CONTROL = /[\u0000-\u001f\u007f]/;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

const byteLength = (text: string): number => Buffer.byteLength(text, 'utf8');

/**
 * The same few names (table, chains, sets) are checked for every operation of a large
 * transaction; remembering the valid ones keeps a 100k-element sync cheap.
 */
const validNames = new Set<string>();
const MAX_REMEMBERED_NAMES = 100_000;

export function checkName(what: string, name: string): string | undefined {
  if (validNames.has(name)) return undefined;
  const problem = findNameProblem(what, name);
  if (problem === undefined) {
    if (validNames.size >= MAX_REMEMBERED_NAMES) validNames.clear();
    validNames.add(name);
  }
  return problem;
}

function findNameProblem(what: string, name: string): string | undefined {
  if (name === '') return `${what} name is empty`;
  if (!NAME.test(name)) return `${what} name ${JSON.stringify(name)} must match ${NAME.source}`;
  if (byteLength(name) > MAX_NAME_BYTES) return `${what} name is longer than ${MAX_NAME_BYTES} bytes`;
  if (RESERVED_WORDS.has(name)) return `${what} name ${JSON.stringify(name)} is an nft keyword`;
  return undefined;
}

/** nft quoted strings have no escapes: a comment can hold anything but `"` and line breaks. */
export function checkComment(comment: string): string | undefined {
  if (comment.includes('"')) return 'comment must not contain a double quote';
  if (CONTROL.test(comment)) return 'comment must not contain control characters';
  if (LONE_SURROGATE.test(comment)) return 'comment is not well-formed Unicode';
  if (byteLength(comment) > MAX_COMMENT_BYTES) return `comment is longer than ${MAX_COMMENT_BYTES} bytes`;
  return undefined;
}

export function quoted(text: string): string {
  return `"${text}"`;
}

/**
 * Rule text is nft syntax by design, so it cannot be escaped; it can only be kept from leaving
 * its line: no `;` (command separator), `#` (comment to end of line), `\` (line continuation),
 * and balanced quotes and brackets (an open `{` would swallow the next operation).
 */
export function checkRuleText(rule: string): string | undefined {
  if (rule.trim() === '') return 'rule text is empty';
  if (CONTROL.test(rule)) return 'rule text must not contain control characters or line breaks';
  if (LONE_SURROGATE.test(rule)) return 'rule text is not well-formed Unicode';
  const pieces = rule.split('"');
  if (pieces.length % 2 === 0) return 'rule text has an unterminated quoted string';
  for (const forbidden of [';', '#', '\\']) {
    if (rule.includes(forbidden)) return `rule text must not contain ${JSON.stringify(forbidden)}`;
  }
  return checkBrackets(pieces.filter((_, i) => i % 2 === 0).join(' '));
}

function checkBrackets(text: string): string | undefined {
  const closing: Record<string, string> = { '{': '}', '[': ']', '(': ')' };
  const open: string[] = [];
  for (const char of text) {
    const close = closing[char];
    if (close !== undefined) open.push(close);
    else if (char === '}' || char === ']' || char === ')') {
      if (open.pop() !== char) return `rule text has an unbalanced ${JSON.stringify(char)}`;
    }
  }
  return open.length === 0 ? undefined : 'rule text has an unclosed bracket';
}

const ELEMENT_ATOM = /^[A-Za-z0-9_.:/-]+$/;
const ELEMENT_QUOTED = /^"[^"\u0000-\u001f\u007f]*"$/;
const VERDICT = /^(?:accept|drop|continue|return|(?:jump|goto) (\S+))$/;

/**
 * One component of an element key or value (`198.19.0.1`, `tcp`, `80`, `10.0.0.0/8`, `1-9`,
 * `"eth0"`), or for map values a verdict (`goto service-x`). No spaces outside verdicts, so a part
 * can never turn into a concatenation, a second element or a comment.
 */
export function checkElementPart(part: string, allowVerdict: boolean): string | undefined {
  if (ELEMENT_ATOM.test(part) || ELEMENT_QUOTED.test(part)) return undefined;
  const verdict = allowVerdict ? VERDICT.exec(part) : null;
  if (verdict !== null) return verdict[1] === undefined ? undefined : checkName('chain', verdict[1]);
  return `element part ${JSON.stringify(part)} is not a single nft value`;
}

const TYPE_SIDE = /^[a-z0-9_]+(?: (?:\.|[a-z0-9_]+))*$/;

/**
 * A set type (`ipv4_addr . inet_service`), typeof expression (`ip daddr . tcp dport`), or for maps
 * `KEY : VALUE`. Words, single spaces and ` . ` only.
 */
export function checkTypeExpression(what: string, expression: string, isMap: boolean): string | undefined {
  const sides = expression.split(' : ');
  if (sides.length !== (isMap ? 2 : 1)) {
    return isMap ? `map ${what} must be "KEY : VALUE"` : `set ${what} must not contain " : "`;
  }
  for (const side of sides) {
    if (!TYPE_SIDE.test(side) || side.endsWith(' .'))
      return `${what} ${JSON.stringify(expression)} is not a valid type expression`;
  }
  return undefined;
}

const DEVICE = /^[A-Za-z0-9_.-]{1,15}$/;

export function checkDevice(device: string): string | undefined {
  return DEVICE.test(device) ? undefined : `device ${JSON.stringify(device)} is not a valid interface name`;
}

export function checkNonNegativeInteger(what: string, value: number): string | undefined {
  return Number.isSafeInteger(value) && value >= 0 ? undefined : `${what} must be a non-negative integer`;
}
