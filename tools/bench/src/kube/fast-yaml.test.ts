import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { toYaml } from './fast-yaml.js';

const roundTrip = (value: unknown): unknown => parse(toYaml(value), { version: '1.1' });

describe('toYaml', () => {
  it('writes kubectl-style block YAML', () => {
    const text = toYaml({
      kind: 'List',
      items: [{ metadata: { name: 'a', labels: {} }, ports: [{ port: 80 }], ok: true }],
    });
    expect(text).toBe(
      [
        'kind: List',
        'items:',
        '- metadata:',
        '    name: a',
        '    labels: {}',
        '  ports:',
        '  - port: 80',
        '  ok: true',
        '',
      ].join('\n'),
    );
  });

  it.each([
    'true',
    'False',
    'yes',
    'NO',
    'on',
    'off',
    'y',
    'n',
    'null',
    '~',
    '',
    '123',
    '0x1F',
    '1e3',
    '1_000',
    '0o17',
    '2025-01-01T00:00:00Z',
    '12:30',
    '198.18.0.1',
    '198.18.0.0/23',
    'a: b',
    '# comment',
    '- item',
    '"quoted"',
    "it's",
    'two\nlines',
    ' padded ',
    'tab\there',
    'ünïcode',
    '*alias',
    '&anchor',
    '!tag',
    '%directive',
    '@at',
    '`tick',
    '{flow}',
    '[flow]',
    'a,b',
    '?',
    '.inf',
    '.',
    'end.',
    'kubernetes.io/service-name',
    'node-000',
  ])('keeps the string %j a string under YAML 1.1 and 1.2', (text) => {
    expect(roundTrip({ [text]: text, list: [text] })).toEqual({ [text]: text, list: [text] });
    expect(parse(toYaml({ v: text }))).toEqual({ v: text });
  });

  it('round-trips nested JSON values', () => {
    const value = {
      a: [1, -2.5, 0, true, false, null, 'x', [], {}, [[1, 2], [{ b: 'c' }]]],
      b: { c: { d: [{ e: 1, f: [{ g: 'h' }] }] } },
      empty: '',
    };
    expect(roundTrip(value)).toEqual(value);
    expect(roundTrip([{ a: 1 }, 'b'])).toEqual([{ a: 1 }, 'b']);
    expect(roundTrip('scalar')).toBe('scalar');
  });

  it('leaves out undefined properties, as JSON.stringify does', () => {
    expect(roundTrip({ a: 1, b: undefined })).toEqual({ a: 1 });
  });

  it('refuses values JSON cannot hold', () => {
    expect(() => toYaml({ a: Number.NaN })).toThrow(TypeError);
    expect(() => toYaml({ a: () => 1 })).toThrow(TypeError);
  });
});
