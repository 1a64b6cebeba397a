import fc from 'fast-check';

/**
 * Test helper (fast-check): command lines built to break a flag parser: known flags bare and with
 * hostile values (`--name=value`, `--name value`), random strings, shorthands and separators. `values`
 * adds program-specific values (modes, addresses) to the common hostile ones.
 */
export function hostileArgv(
  flagNames: readonly string[],
  values: readonly string[] = [],
  shorthands: readonly string[] = [],
): fc.Arbitrary<string[]> {
  const value = fc.oneof(
    fc.string({ maxLength: 30 }),
    fc.constantFrom(
      '',
      '0',
      '-1',
      '1h',
      '-5m',
      '1.5s',
      '1e400',
      'NaN',
      '999999999999999h',
      '\u0000',
      '--',
      '-',
      ...values,
    ),
  );
  const arg = fc.oneof(
    fc.string({ maxLength: 20 }),
    fc.constantFrom(...flagNames).map((n) => `--${n}`),
    fc.tuple(fc.constantFrom(...flagNames), value).map(([n, v]) => `--${n}=${v}`),
    value,
    fc.constantFrom('-', '--', '---', '---x', '--=', '--=x', ...shorthands),
  );
  return fc.array(arg, { maxLength: 12 });
}
