/**
 * Splits nft text into tokens: words separated by blanks, `"quoted strings"` kept whole (quotes
 * included), and `;`, `{`, `}` as tokens of their own. nft strings have no escapes, so a quote
 * always ends at the next quote.
 */
export function tokenize(text: string): string[] {
  const tokens: string[] = [];
  let current = '';
  let inQuotes = false;
  const flush = (): void => {
    if (current !== '') tokens.push(current);
    current = '';
  };
  for (const char of text) {
    if (inQuotes) {
      current += char;
      if (char === '"') inQuotes = false;
    } else if (char === '"') {
      current += char;
      inQuotes = true;
    } else if (char === ' ' || char === '\t' || char === '\n') {
      flush();
    } else if (char === ';' || char === '{' || char === '}') {
      flush();
      tokens.push(char);
    } else {
      current += char;
    }
  }
  if (inQuotes) throw new Error(`unterminated quoted string in ${JSON.stringify(text)}`);
  flush();
  return tokens;
}

export function isQuoted(token: string): boolean {
  return token.length >= 2 && token.startsWith('"') && token.endsWith('"');
}

export function unquote(token: string): string {
  if (!isQuoted(token)) throw new Error(`expected a quoted string, got ${JSON.stringify(token)}`);
  return token.slice(1, -1);
}

/**
 * The statements of a `{ a b ; c d ; }` block starting at `tokens[start]`, split on `;`, and the
 * index just past the closing brace.
 */
export function blockStatements(tokens: readonly string[], start: number): { statements: string[][]; end: number } {
  if (tokens[start] !== '{') throw new Error(`expected "{" at token ${start}`);
  const statements: string[][] = [];
  let statement: string[] = [];
  for (let i = start + 1; i < tokens.length; i++) {
    const token = tokens[i] as string;
    if (token === '}') {
      if (statement.length > 0) statements.push(statement);
      return { statements, end: i + 1 };
    }
    if (token === ';') {
      if (statement.length > 0) statements.push(statement);
      statement = [];
    } else {
      statement.push(token);
    }
  }
  throw new Error('unclosed "{" block');
}
