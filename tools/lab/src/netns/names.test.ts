import { describe, expect, test } from 'vitest';
import { namespaceName, ownerPid } from './names.js';

describe('namespaceName', () => {
  test.each([
    ['node', 1234, 'kpng-t-1234-node'],
    ['lab0-p1', 7, 'kpng-t-7-lab0-p1'],
  ])('%s for pid %i is %s', (name, pid, expected) => {
    expect(namespaceName(name, pid)).toBe(expected);
  });

  test('uses this process by default', () => {
    expect(namespaceName('x')).toBe(`kpng-t-${process.pid}-x`);
  });

  test.each(['', 'Upper', 'with space', '-lead', 'a/b', 'x'.repeat(41)])('refuses %j', (name) => {
    expect(() => namespaceName(name, 1)).toThrow(/must match/);
  });
});

describe('ownerPid', () => {
  test.each([
    ['kpng-t-1234-node', 1234],
    ['kpng-t-1-lab0-ext', 1],
    ['kpng-t-x-node', undefined],
    ['other-1234-node', undefined],
    ['cni-1234', undefined],
  ])('%s -> %s', (name, pid) => {
    expect(ownerPid(name)).toBe(pid);
  });
});
