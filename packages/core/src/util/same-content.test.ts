import { describe, expect, it } from 'vitest';
import { sameContent } from './same-content.js';

describe('sameContent', () => {
  it.each([
    ['key order', { a: 1, b: [1, 2] }, { b: [1, 2], a: 1 }],
    ['undefined members', { a: 1, c: undefined }, { a: 1 }],
    ['undefined members on the right', { a: 1 }, { a: 1, c: undefined }],
    ['nested objects', { b: { y: 1, x: 2 }, a: null }, { a: null, b: { x: 2, y: 1 } }],
    ['primitives', 'x', 'x'],
    ['empty containers', { a: [], b: {} }, { b: {}, a: [] }],
  ])('equal despite %s', (_name, a, b) => {
    expect(sameContent(a, b)).toBe(true);
  });

  it.each([
    ['array order', { a: [1, 2] }, { a: [2, 1] }],
    ['string vs number', { a: '1' }, { a: 1 }],
    ['a missing member', { a: 1, b: 2 }, { a: 1 }],
    ['an extra member', { a: 1 }, { a: 1, b: 2 }],
    ['null vs object', { a: null }, { a: {} }],
    ['array vs object', { a: [] }, { a: {} }],
    ['object vs array', { a: {} }, { a: [] }],
    ['array length', [1], [1, 1]],
    ['a deep difference', { a: [{ b: { c: true } }] }, { a: [{ b: { c: false } }] }],
    ['defined vs undefined', { a: 0 }, { a: undefined }],
  ])('different with %s', (_name, a, b) => {
    expect(sameContent(a, b)).toBe(false);
    expect(sameContent(b, a)).toBe(false);
  });
});
