import { canonicalChain } from '../canonical.js';
import { withChainStatements } from '../objects/chain.js';
import { parseFamily } from '../objects/codec.js';
import { withCounterStatements } from '../objects/counter.js';
import { parseElementBody } from '../objects/element.js';
import { withSetStatements } from '../objects/set-like.js';
import type { Chain, Counter, Element, Family, NftMap, NftObject, NftSet, Rule } from '../objects/types.js';
import { tokenize, unquote } from '../tokens.js';
import { splitElements } from './split-elements.js';

/**
 * Reads the text nft prints for `nft -a list table|set|map …` (checked against nft 1.0.6) into
 * objects. Text rather than JSON because nft 1.0.6's JSON drops table and chain comments, and
 * has no rule text at all. Live counter values in rules are dropped (`counter packets 3 bytes
 * 180` reads as `counter`) so listings compare with what was written; elements' timeout/expiry
 * are dropped likewise. Blocks of kinds the library does not model (quotas, flowtables, …) are
 * skipped.
 */
export function parseListing(text: string): NftObject[] {
  return new ListingParser(text.split('\n')).parse();
}

/** `start`: how many objects existed when the block opened; its declaration goes there. */
type Block =
  | { readonly kind: 'table'; readonly family: Family; readonly name: string }
  | {
      readonly kind: 'chain';
      readonly family: Family;
      readonly table: string;
      chain: Chain;
      readonly statements: string[][];
      readonly start: number;
    }
  | {
      readonly kind: 'set' | 'map';
      readonly family: Family;
      readonly table: string;
      readonly name: string;
      readonly statements: string[][];
      readonly start: number;
    }
  | {
      readonly kind: 'counter';
      readonly family: Family;
      readonly table: string;
      readonly name: string;
      readonly statements: string[][];
      readonly start: number;
    }
  | { readonly kind: 'skipped' };

const HANDLE = / # handle (\d+)$/;
const LIVE_COUNTER = /\bcounter packets \d+ bytes \d+/g;

class ListingParser {
  readonly #lines: readonly string[];
  readonly #objects: NftObject[] = [];
  readonly #stack: Block[] = [];
  #next = 0;

  constructor(lines: readonly string[]) {
    this.#lines = lines;
  }

  parse(): NftObject[] {
    while (this.#next < this.#lines.length) {
      const number = this.#next + 1;
      const raw = this.#lines[this.#next++] as string;
      try {
        this.#line(raw);
      } catch (error) {
        throw new Error(`cannot parse nft listing line ${number}: ${(error as Error).message}: ${raw.trim()}`, {
          cause: error,
        });
      }
    }
    if (this.#stack.length > 0) throw new Error('nft listing ended inside a block');
    return this.#objects;
  }

  #line(raw: string): void {
    const handleMatch = HANDLE.exec(raw);
    const line = (handleMatch === null ? raw : raw.slice(0, handleMatch.index)).trim();
    if (line === '') return;
    const block = this.#stack[this.#stack.length - 1];
    if (line === '}') return this.#close();
    if (block === undefined) return this.#openTable(line);
    if (block.kind === 'skipped') {
      if (line.endsWith('{')) this.#stack.push({ kind: 'skipped' });
      return;
    }
    if (block.kind === 'table') return this.#tableLine(block, line);
    if (block.kind === 'chain') return this.#chainLine(block, line, handleMatch?.[1]);
    if (line.startsWith('elements = {') && block.kind !== 'counter') return this.#elements(block, line);
    block.statements.push(...statementsOf(line));
  }

  #openTable(line: string): void {
    const tokens = tokenize(line);
    if (tokens[0] !== 'table' || tokens[3] !== '{') throw new Error('expected "table FAMILY NAME {"');
    const family = parseFamily(tokens[1]);
    const name = tokens[2] as string;
    this.#stack.push({ kind: 'table', family, name });
    this.#objects.push({ kind: 'table', family, name });
  }

  #tableLine(table: Extract<Block, { kind: 'table' }>, line: string): void {
    const tokens = tokenize(line);
    const [keyword, name] = tokens;
    if (keyword === 'comment') {
      const index = this.#objects.findIndex(
        (o) => o.kind === 'table' && o.family === table.family && o.name === table.name,
      );
      this.#objects[index] = { kind: 'table', family: table.family, name: table.name, comment: unquote(name ?? '') };
      return;
    }
    if (tokens[tokens.length - 1] !== '{' || name === undefined) return; // table flags and the like
    const owner = { family: table.family, table: table.name };
    const start = this.#objects.length;
    if (keyword === 'chain') {
      this.#stack.push({ kind: 'chain', ...owner, chain: { kind: 'chain', ...owner, name }, statements: [], start });
    } else if (keyword === 'set' || keyword === 'map' || keyword === 'counter') {
      this.#stack.push({ kind: keyword, ...owner, name, statements: [], start });
    } else {
      this.#stack.push({ kind: 'skipped' });
    }
  }

  #chainLine(block: Extract<Block, { kind: 'chain' }>, line: string, handle: string | undefined): void {
    if (/^(type|comment|policy) /.test(line)) {
      block.statements.push(...statementsOf(line));
      return;
    }
    const commentMatch = / comment "([^"]*)"$/.exec(line);
    const text = (commentMatch === null ? line : line.slice(0, commentMatch.index)).replace(LIVE_COUNTER, 'counter');
    const rule: Rule = {
      kind: 'rule',
      family: block.family,
      table: block.table,
      chain: block.chain.name,
      rule: text,
      ...(commentMatch === null ? {} : { comment: commentMatch[1] as string }),
      ...(handle === undefined ? {} : { handle: Number(handle) }),
    };
    this.#objects.push(rule);
  }

  #elements(block: Extract<Block, { kind: 'set' | 'map' }>, first: string): void {
    // nft wraps long element lists over many lines; quoted strings never span lines.
    const lines = [first.slice('elements = '.length)];
    let depth = braceDepthChange(lines[0] as string);
    while (depth > 0) {
      if (this.#next >= this.#lines.length) throw new Error('unterminated element list');
      const line = (this.#lines[this.#next++] as string).trim();
      lines.push(line);
      depth += braceDepthChange(line);
    }
    const text = lines.join(' ');
    const tokens = tokenize(text);
    for (const elementTokens of splitElements(tokens.slice(1, -1))) {
      const body = parseElementBody(elementTokens);
      const element: Element = {
        kind: 'element',
        family: block.family,
        table: block.table,
        ...(block.kind === 'set' ? { set: block.name } : { map: block.name }),
        key: body.key,
        ...(body.value === undefined ? {} : { value: body.value }),
        ...(body.comment === undefined ? {} : { comment: body.comment }),
      };
      this.#objects.push(element);
    }
  }

  #close(): void {
    const block = this.#stack.pop();
    if (block === undefined) throw new Error('unbalanced "}"');
    if (block.kind === 'table' || block.kind === 'skipped') return;
    const owner = { family: block.family, table: block.table };
    let declared: NftObject;
    if (block.kind === 'chain') declared = canonicalChain(withChainStatements(block.chain, block.statements));
    else if (block.kind === 'counter')
      declared = withCounterStatements({ kind: 'counter', ...owner, name: block.name }, block.statements);
    else
      declared = withSetStatements(
        { kind: block.kind, ...owner, name: block.name } as NftSet | NftMap,
        block.statements,
      );
    // The declaration goes before the rules or elements collected inside its block.
    this.#objects.splice(block.start, 0, declared as Chain | Counter | NftSet | NftMap);
  }
}

function statementsOf(line: string): string[][] {
  const statements: string[][] = [];
  let current: string[] = [];
  for (const token of tokenize(line)) {
    if (token === ';') {
      if (current.length > 0) statements.push(current);
      current = [];
    } else {
      current.push(token);
    }
  }
  if (current.length > 0) statements.push(current);
  return statements;
}

function braceDepthChange(line: string): number {
  let change = 0;
  for (const token of tokenize(line)) {
    if (token === '{') change++;
    else if (token === '}') change--;
  }
  return change;
}
