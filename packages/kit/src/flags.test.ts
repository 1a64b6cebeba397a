import { describe, expect, it } from 'vitest';
import { FlagSyntaxError, tokenizeFlags, type FlagDialect, type FlagShape } from './flags.js';

interface Spec extends FlagShape {
  readonly id: string;
}
const SPECS: Record<string, Spec> = {
  'proxy-mode': { id: 'proxy-mode', isBool: false },
  v: { id: 'v', isBool: false },
  cleanup: { id: 'cleanup', isBool: true },
  help: { id: 'help', isBool: true },
};
const pflag: FlagDialect<Spec> = {
  dialect: 'pflag',
  long: (name) => (name === 'v' ? undefined : SPECS[name]),
  short: (letter) => (letter === 'v' ? SPECS['v'] : letter === 'h' ? SPECS['help'] : undefined),
};
const go: FlagDialect<Spec> = { dialect: 'go', long: (name) => SPECS[name] };

const read = (argv: string[], dialect: FlagDialect<Spec>) =>
  [...tokenizeFlags(argv, dialect)].map((t) => (t.kind === 'flag' ? `${t.spec.id}=${t.value}` : t.args));

const failure = (argv: string[], dialect: FlagDialect<Spec>): FlagSyntaxError => {
  try {
    read(argv, dialect);
  } catch (e) {
    return e as FlagSyntaxError;
  }
  throw new Error('no error');
};

describe('tokenizeFlags, pflag', () => {
  it('reads --a=b, --a b, a bare boolean, -v=2, -v 2, -v2, -h', () => {
    expect(read(['--proxy-mode=nftables', '--proxy-mode', 'ipvs', '--cleanup', '--cleanup=false'], pflag)).toEqual([
      'proxy-mode=nftables',
      'proxy-mode=ipvs',
      'cleanup=true',
      'cleanup=false',
    ]);
    expect(read(['-v=2', '-v', '3', '-v4', '-h'], pflag)).toEqual(['v=2', 'v=3', 'v=4', 'help=true']);
  });

  it('tells a bare boolean from a given value', () => {
    const given = [...tokenizeFlags(['--cleanup', '--cleanup=true', '-h', '-v1'], pflag)].map(
      (t) => t.kind === 'flag' && t.given,
    );
    expect(given).toEqual([false, true, false, true]);
  });

  it('keeps reading flags after another argument; -- ends them', () => {
    expect(read(['x', '--cleanup', '--', '--proxy-mode'], pflag)).toEqual([['x'], 'cleanup=true', ['--proxy-mode']]);
  });

  it.each([
    [['--nope'], 'unknown', 'nope', false],
    [['-x'], 'unknown', 'x', true],
    [['-hv'], 'unknown', 'v', true],
    [['--proxy-mode'], 'needs-argument', 'proxy-mode', false],
    [['-v'], 'needs-argument', 'v', true],
    [['---x'], 'bad-syntax', '', false],
    [['--=x'], 'bad-syntax', '', false],
  ] as const)('%j is %s', (argv, reason, flag, shorthand) => {
    expect(failure([...argv], pflag)).toMatchObject({ reason, flag, shorthand, arg: argv[0] });
  });
});

describe("tokenizeFlags, go (Go's flag)", () => {
  it('reads one or two dashes before a long name and stops at the first other argument', () => {
    expect(read(['-proxy-mode=a', '--proxy-mode', 'b', '-cleanup', 'rest', '--help'], go)).toEqual([
      'proxy-mode=a',
      'proxy-mode=b',
      'cleanup=true',
      ['rest', '--help'],
    ]);
    expect(read(['-', '-cleanup'], go)).toEqual([['-', '-cleanup']]);
    expect(read(['--', '-cleanup'], go)).toEqual([['-cleanup']]);
  });

  it('is lazy: a token before an error is read first', () => {
    const tokens = tokenizeFlags(['-help', '-nope'], go);
    expect(tokens.next().value).toMatchObject({ kind: 'flag', name: 'help' });
    expect(() => tokens.next()).toThrow(FlagSyntaxError);
  });

  it.each([
    [['-nope'], 'unknown', 'nope'],
    [['-proxy-mode'], 'needs-argument', 'proxy-mode'],
    [['--=x'], 'bad-syntax', ''],
  ] as const)('%j is %s', (argv, reason, flag) => {
    expect(failure([...argv], go)).toMatchObject({ reason, flag, shorthand: false });
  });
});
