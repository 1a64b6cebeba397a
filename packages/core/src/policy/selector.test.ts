import { describe, expect, test } from 'vitest';
import { EVERYTHING, matchesSelector } from './selector.js';
import type { LabelSelector, SelectorRequirement } from './types.js';

const selector = (matchLabels: Record<string, string>, ...matchExpressions: SelectorRequirement[]): LabelSelector => ({
  matchLabels,
  matchExpressions,
});

describe('matchesSelector', () => {
  test.each([
    ['the empty selector selects everything', EVERYTHING, {}, true],
    ['the empty selector selects labelled objects', EVERYTHING, { app: 'web' }, true],
    ['matchLabels equal', selector({ app: 'web' }), { app: 'web', tier: 'x' }, true],
    ['matchLabels value differs', selector({ app: 'web' }), { app: 'db' }, false],
    ['matchLabels key missing', selector({ app: 'web' }), {}, false],
    ['every matchLabels pair must hold', selector({ app: 'web', tier: 'fe' }), { app: 'web' }, false],
    ['In: value listed', selector({}, { key: 'env', operator: 'In', values: ['dev', 'prod'] }), { env: 'prod' }, true],
    ['In: value not listed', selector({}, { key: 'env', operator: 'In', values: ['dev'] }), { env: 'prod' }, false],
    ['In: key missing', selector({}, { key: 'env', operator: 'In', values: ['dev'] }), {}, false],
    ['NotIn: value listed', selector({}, { key: 'env', operator: 'NotIn', values: ['dev'] }), { env: 'dev' }, false],
    ['NotIn: other value', selector({}, { key: 'env', operator: 'NotIn', values: ['dev'] }), { env: 'qa' }, true],
    ['NotIn: key missing matches', selector({}, { key: 'env', operator: 'NotIn', values: ['dev'] }), {}, true],
    ['Exists: present (empty value)', selector({}, { key: 'env', operator: 'Exists', values: [] }), { env: '' }, true],
    ['Exists: missing', selector({}, { key: 'env', operator: 'Exists', values: [] }), {}, false],
    ['DoesNotExist: missing', selector({}, { key: 'env', operator: 'DoesNotExist', values: [] }), {}, true],
    ['DoesNotExist: present', selector({}, { key: 'env', operator: 'DoesNotExist', values: [] }), { env: 'x' }, false],
    [
      'labels and expressions together',
      selector({ app: 'web' }, { key: 'env', operator: 'NotIn', values: ['dev'] }),
      { app: 'web', env: 'dev' },
      false,
    ],
    [
      'an inherited property is not a label',
      selector({}, { key: 'toString', operator: 'Exists', values: [] }),
      {},
      false,
    ],
  ] as const)('%s', (_name, sel, labels, expected) => {
    expect(matchesSelector(sel, labels)).toBe(expected);
  });
});
