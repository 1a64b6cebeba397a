import { describe, expect, it } from 'vitest';
import { mergePatch } from './merge-patch.js';

describe('mergePatch (RFC 7386)', () => {
  it.each([
    ['a key is replaced', { a: 1, b: 2 }, { a: 3 }, { a: 3, b: 2 }],
    [
      'objects merge key by key',
      { s: { count: 2, at: 'x' }, k: 1 },
      { s: { count: 3 } },
      { s: { count: 3, at: 'x' }, k: 1 },
    ],
    ['null deletes', { a: 1, b: 2 }, { b: null }, { a: 1 }],
    ['an array replaces whole', { a: [1, 2] }, { a: [3] }, { a: [3] }],
    ['a new object key is created', { a: 1 }, { s: { count: 2 } }, { a: 1, s: { count: 2 } }],
    ['a non-object patch replaces the target', { a: 1 }, 'x', 'x'],
  ])('%s', (_name, target, patch, expected) => {
    expect(mergePatch(target, patch)).toEqual(expected);
  });

  it('leaves the target unchanged', () => {
    const target = { s: { count: 2 } };
    mergePatch(target, { s: { count: 9 } });
    expect(target).toEqual({ s: { count: 2 } });
  });
});
