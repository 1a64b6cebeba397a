import { describe, expect, it } from 'vitest';
import { ElementCounts } from './filter-elements.js';

describe('ElementCounts: an element goes only when its last contributor does', () => {
  it.each([
    ['one contributor', ['+a', '-a'], [true, true], []],
    ['two contributors, one leaves', ['+a', '+a', '-a'], [true, false, false], ['a']],
    ['two contributors, both leave', ['+a', '+a', '-a', '-a'], [true, false, false, true], []],
    [
      'three, out and back in',
      ['+a', '+a', '+a', '-a', '-a', '+a', '-a', '-a'],
      [true, false, false, false, false, false, false, true],
      [],
    ],
    ['unknown removed', ['-a', '+b'], [false, true], ['b']],
  ] as const)('%s', (_name, steps, firstOrLast, left) => {
    const counts = new ElementCounts();
    const results = steps.map((s) =>
      s[0] === '+' ? counts.add('hairpin', [s.slice(1)]) : counts.remove('hairpin', [s.slice(1)]),
    );
    expect(results).toEqual(firstOrLast);
    expect([...counts.entries()]).toEqual(left.map((k) => ['hairpin', [k]]));
  });
});
