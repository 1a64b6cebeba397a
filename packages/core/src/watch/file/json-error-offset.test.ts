import { describe, expect, it } from 'vitest';
import { jsonErrorOffset } from './json-error-offset.js';

describe('jsonErrorOffset', () => {
  it.each([['{}'], [' {"a": [1, -2.5e3, true, false, null, "x\\"\\u00e9\\n"], "b": {}} '], ['[]'], ['"s"'], ['0']])(
    'accepts %s',
    (text) => {
      expect(jsonErrorOffset(text)).toBeUndefined();
    },
  );

  it.each<[string, number]>([
    ['{"a": }', 6],
    ['{"a": 1,}', 8],
    ['{"a" 1}', 5],
    ['[1 2]', 3],
    ['{a: 1}', 1],
    ['{"a": 01}', 7],
    ['{"a": "\\x"}', 8],
    ['{"a": "line\nbreak"}', 11],
    ['{"a": tru}', 6],
    ['{} {}', 3],
    ['', 0],
    ['{"a": [1, 2}', 11],
  ])('finds the error in %j at %i', (text, offset) => {
    expect(jsonErrorOffset(text)).toBe(offset);
  });
});
