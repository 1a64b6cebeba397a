import { isQuoted } from '../tokens.js';

/**
 * Splits the tokens inside `elements = { … }` at the commas between elements. nft glues each
 * comma to the token before it (`198.19.0.1,`, `"ns/svc:p80",`); a comma inside a quoted
 * comment belongs to the comment.
 */
export function splitElements(tokens: readonly string[]): string[][] {
  const elements: string[][] = [];
  let current: string[] = [];
  for (const token of tokens) {
    const separator = token.endsWith(',') && !isQuoted(token);
    if (token !== ',') current.push(separator ? token.slice(0, -1) : token);
    if (separator || token === ',') {
      elements.push(current.filter((t) => t !== ''));
      current = [];
    }
  }
  if (current.length > 0) elements.push(current);
  return elements.filter((element) => element.length > 0);
}
