/**
 * Parses the rule forms the renderer writes, and only those: a rule is a list of statements,
 * each a match, a mark/affinity action, a DNAT or a verdict. Anything else throws, so the
 * renderer and the tracer cannot drift apart silently.
 */

/** One component of a concatenation. */
export type Atom =
  | { readonly kind: 'addr'; readonly which: 'saddr' | 'daddr'; readonly mask?: string }
  | { readonly kind: 'l4proto' }
  | { readonly kind: 'dport' }
  /** `FIELD & 0 | VALUE`: a constant inside a concatenation. */
  | { readonly kind: 'const'; readonly value: string }
  /** The connection's original destination (before DNAT). */
  | { readonly kind: 'ct-original-daddr' }
  | { readonly kind: 'ct-original-dport' }
  | { readonly kind: 'numgen'; readonly mode: 'random' | 'inc'; readonly mod: number; readonly offset: number }
  /** `jhash ADDR daddr . th dport mod N seed S` (the affinity hash of the DNATed destination). */
  | { readonly kind: 'jhash'; readonly key: readonly Atom[]; readonly mod: number; readonly seed: number };

export type Verdict =
  | { readonly kind: 'jump' | 'goto'; readonly chain: string }
  | { readonly kind: 'return' | 'drop' | 'reject' | 'accept' };

export type Statement =
  | { readonly kind: 'ct-new' }
  | { readonly kind: 'ct-dnat' }
  | { readonly kind: 'fib-local'; readonly which: 'saddr' | 'daddr' }
  | { readonly kind: 'iifname'; readonly negate: boolean; readonly pattern: string }
  | { readonly kind: 'l4proto-is'; readonly protos: readonly string[] }
  | { readonly kind: 'lookup'; readonly key: readonly Atom[]; readonly negate: boolean; readonly set: string }
  | { readonly kind: 'vmap'; readonly key: readonly Atom[]; readonly map: string }
  | { readonly kind: 'not-cidr'; readonly key: Atom; readonly cidr: string }
  | { readonly kind: 'mark-or' | 'mark-xor'; readonly bits: number }
  | { readonly kind: 'mark-clear'; readonly bits: number }
  | { readonly kind: 'masquerade' }
  | { readonly kind: 'update'; readonly set: string; readonly key: readonly Atom[] }
  | { readonly kind: 'dnat'; readonly key: readonly Atom[]; readonly map: string }
  | { readonly kind: 'dnat-to'; readonly ip: string; readonly port: number }
  | { readonly kind: 'numgen-vmap'; readonly mod: number; readonly targets: ReadonlyMap<number, Verdict> }
  | { readonly kind: 'verdict'; readonly verdict: Verdict };

export class UnknownRuleError extends Error {
  override readonly name = 'UnknownRuleError';
}

class Tokens {
  readonly #tokens: string[];
  #i = 0;
  constructor(readonly text: string) {
    this.#tokens = text.split(' ').filter((t) => t !== '');
  }
  peek(offset = 0): string | undefined {
    return this.#tokens[this.#i + offset];
  }
  next(): string {
    const token = this.#tokens[this.#i++];
    if (token === undefined) this.fail('unexpected end');
    return token;
  }
  expect(...words: string[]): void {
    for (const word of words) if (this.next() !== word) this.fail(`expected "${word}"`);
  }
  get done(): boolean {
    return this.#i >= this.#tokens.length;
  }
  fail(why: string): never {
    throw new UnknownRuleError(`tracer does not know this rule shape (${why} at token ${this.#i}): ${this.text}`);
  }
}

const int = (t: Tokens, text: string): number => {
  if (!/^(0x[0-9a-f]+|\d+)$/.test(text)) t.fail(`expected a number, got "${text}"`);
  return Number(text);
};

/** `& ZERO | VALUE` after a field: the constant VALUE. */
function constant(t: Tokens, zero: string): Atom {
  t.expect('&', zero, '|');
  return { kind: 'const', value: t.next() };
}

function atom(t: Tokens): Atom {
  const word = t.next();
  if (word === 'ip' || word === 'ip6') {
    const which = t.next();
    if (which !== 'saddr' && which !== 'daddr') t.fail('expected saddr or daddr');
    if (t.peek() === '&' && t.peek(2) === '|') return constant(t, t.peek(1) as string);
    if (t.peek() === '&') {
      t.next();
      return { kind: 'addr', which, mask: t.next() };
    }
    return { kind: 'addr', which };
  }
  if (word === 'th') {
    t.expect('dport');
    if (t.peek() === '&') return constant(t, '0');
    return { kind: 'dport' };
  }
  if (word === 'ct') {
    t.expect('original');
    const what = t.next();
    if (what === 'proto-dst') return { kind: 'ct-original-dport' };
    if (what !== 'ip' && what !== 'ip6') t.fail('expected ct original ip|ip6|proto-dst');
    t.expect('daddr');
    return { kind: 'ct-original-daddr' };
  }
  if (word === 'meta' && t.peek() === 'l4proto') {
    t.next();
    return { kind: 'l4proto' };
  }
  if (word === 'meta' && t.peek() === 'mark') {
    t.expect('mark');
    const value = constant(t, '0x0');
    if (value.kind === 'const') int(t, value.value);
    return value;
  }
  if (word === 'jhash') {
    const key = [atom(t)];
    while (t.peek() === '.') {
      t.next();
      key.push(atom(t));
    }
    t.expect('mod');
    const mod = int(t, t.next());
    t.expect('seed');
    return { kind: 'jhash', key, mod, seed: int(t, t.next()) };
  }
  if (word === 'numgen') {
    const mode = t.next();
    if (mode !== 'random' && mode !== 'inc') t.fail('expected random or inc');
    t.expect('mod');
    const mod = int(t, t.next());
    let offset = 0;
    if (t.peek() === 'offset') {
      t.next();
      offset = int(t, t.next());
    }
    return { kind: 'numgen', mode, mod, offset };
  }
  return t.fail(`unknown expression "${word}"`);
}

function concat(t: Tokens): Atom[] {
  const atoms = [atom(t)];
  while (t.peek() === '.') {
    t.next();
    atoms.push(atom(t));
  }
  return atoms;
}

function verdict(t: Tokens): Verdict {
  const word = t.next();
  if (word === 'jump' || word === 'goto') return { kind: word, chain: t.next() };
  if (word === 'reject' && t.peek() === 'with') t.expect('with', 'tcp', 'reset');
  if (word === 'return' || word === 'drop' || word === 'reject' || word === 'accept') return { kind: word };
  return t.fail(`expected a verdict, got "${word}"`);
}

const setName = (t: Tokens, token: string): string =>
  token.startsWith('@') ? token.slice(1) : t.fail('expected @set');

function statement(t: Tokens): Statement {
  const [a, b, c] = [t.peek(), t.peek(1), t.peek(2)];
  if (a === 'ct' && b === 'state') return (t.expect('ct', 'state', 'new'), { kind: 'ct-new' });
  if (a === 'ct' && b === 'status') return (t.expect('ct', 'status', 'dnat'), { kind: 'ct-dnat' });
  if (a === 'fib') {
    t.next();
    const which = t.next();
    if (which !== 'saddr' && which !== 'daddr') t.fail('expected fib saddr or daddr');
    t.expect('type', 'local');
    return { kind: 'fib-local', which };
  }
  if (a === 'iifname') {
    t.next();
    const negate = t.peek() === '!=';
    if (negate) t.next();
    const quoted = t.next();
    if (!/^"[^"]*"$/.test(quoted)) t.fail('expected a quoted interface name');
    return { kind: 'iifname', negate, pattern: quoted.slice(1, -1) };
  }
  if (a === 'meta' && b === 'l4proto' && c !== undefined && /^(tcp|udp|sctp)$/.test(c)) {
    (t.next(), t.next(), t.next());
    return { kind: 'l4proto-is', protos: [c] };
  }
  if (a === 'meta' && b === 'l4proto' && c === '{') {
    t.expect('meta', 'l4proto', '{');
    const protos: string[] = [];
    for (;;) {
      const proto = t.next();
      if (!/^(tcp|udp|sctp)$/.test(proto)) t.fail(`unknown protocol "${proto}"`);
      protos.push(proto);
      const sep = t.next();
      if (sep === '}') break;
      if (sep !== ',') t.fail('expected , or }');
    }
    return { kind: 'l4proto-is', protos };
  }
  if (a === 'meta' && b === 'mark' && c === 'set') {
    t.expect('meta', 'mark', 'set', 'meta', 'mark');
    const op = t.next();
    if (op !== 'or' && op !== 'xor') t.fail('expected or/xor');
    return { kind: op === 'or' ? 'mark-or' : 'mark-xor', bits: int(t, t.next()) };
  }
  if (a === 'meta' && b === 'mark' && c === '&') {
    t.expect('meta', 'mark', '&');
    const bits = int(t, t.next());
    t.expect('==', '0');
    return { kind: 'mark-clear', bits };
  }
  if (a === 'masquerade') return (t.expect('masquerade', 'fully-random'), { kind: 'masquerade' });
  if (a === 'update') {
    t.next();
    const set = setName(t, t.next());
    t.expect('{');
    const key = concat(t);
    t.expect('timeout');
    if (!/^\d+s$/.test(t.next())) t.fail('expected a timeout in seconds');
    t.expect('}');
    return { kind: 'update', set, key };
  }
  if (a === 'dnat') {
    t.next();
    if (!/^ip6?$/.test(t.next())) t.fail('expected dnat ip|ip6');
    t.expect('to');
    const target = /^(?:\[([0-9a-f:]+)\]|([\d.]+)):(\d+)$/.exec(t.peek() ?? '');
    if (target !== null) {
      t.next();
      return { kind: 'dnat-to', ip: (target[1] ?? target[2]) as string, port: Number(target[3]) };
    }
    const key = concat(t);
    t.expect('map');
    return { kind: 'dnat', key, map: setName(t, t.next()) };
  }
  if (a === 'numgen' && t.peek(4) === 'vmap') {
    t.expect('numgen', 'random', 'mod');
    const mod = int(t, t.next());
    t.expect('vmap', '{');
    const targets = new Map<number, Verdict>();
    for (;;) {
      const index = int(t, t.next());
      t.expect(':');
      targets.set(index, verdict(t));
      const sep = t.next();
      if (sep === '}') break;
      if (sep !== ',') t.fail('expected , or }');
    }
    return { kind: 'numgen-vmap', mod, targets };
  }
  if (a !== undefined && /^(jump|goto|return|drop|reject|accept)$/.test(a))
    return { kind: 'verdict', verdict: verdict(t) };
  // A concatenation (possibly one atom) followed by a lookup, a vmap or a negated CIDR.
  const key = concat(t);
  const op = t.next();
  if (op === 'vmap') return { kind: 'vmap', key, map: setName(t, t.next()) };
  if (op.startsWith('@')) return { kind: 'lookup', key, negate: false, set: op.slice(1) };
  if (op === '!=') {
    const target = t.next();
    if (target.startsWith('@')) return { kind: 'lookup', key, negate: true, set: target.slice(1) };
    if (key.length !== 1 || (!target.includes('/') && !target.includes(':') && !/^[\d.]+$/.test(target)))
      t.fail('expected an address');
    return { kind: 'not-cidr', key: key[0] as Atom, cidr: target };
  }
  return t.fail(`unexpected "${op}"`);
}

export function parseRule(text: string): Statement[] {
  const t = new Tokens(text.replaceAll(',', ' , '));
  const statements: Statement[] = [];
  while (!t.done) statements.push(statement(t));
  return statements;
}
