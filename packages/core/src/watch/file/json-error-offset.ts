/**
 * The offset of the first syntax error in `text` as JSON, or undefined if it is valid. Node 20's
 * `JSON.parse` errors do not always carry a position, and a malformed manifest must be reported
 * with its line and column; this scanner only runs after `JSON.parse` has already failed.
 */
export function jsonErrorOffset(text: string): number | undefined {
  let i = 0;
  const fail = (): never => {
    throw new ScanError(i);
  };
  const skipSpace = () => {
    while (i < text.length && ' \t\n\r'.includes(text[i]!)) i++;
  };
  const expect = (c: string) => {
    skipSpace();
    if (text[i] !== c) fail();
    i++;
  };
  const string = () => {
    expect('"');
    for (;;) {
      const c = text[i];
      if (c === undefined || c < ' ') fail();
      i++;
      if (c === '"') return;
      if (c !== '\\') continue;
      const escape = text[i];
      if (escape === 'u' && /^[0-9a-fA-F]{4}$/.test(text.slice(i + 1, i + 5))) i += 5;
      else if (escape !== undefined && '"\\/bfnrt'.includes(escape)) i++;
      else fail();
    }
  };
  const sequence = (close: string, item: () => void) => {
    i++;
    skipSpace();
    if (text[i] === close) return void i++;
    for (;;) {
      item();
      skipSpace();
      if (text[i] === close) return void i++;
      expect(',');
    }
  };
  const value = (): void => {
    skipSpace();
    const c = text[i];
    if (c === '{') return sequence('}', () => (string(), expect(':'), value()));
    if (c === '[') return sequence(']', value);
    if (c === '"') return string();
    const literal = /true|false|null|-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;
    literal.lastIndex = i;
    if (!literal.test(text)) fail();
    i = literal.lastIndex;
  };
  try {
    value();
    skipSpace();
    if (i < text.length) fail();
    return undefined;
  } catch (e) {
    if (e instanceof ScanError) return e.offset;
    return undefined; // nesting too deep for the stack: no position, but still an error upstream
  }
}

class ScanError {
  constructor(readonly offset: number) {}
}
