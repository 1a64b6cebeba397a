import { describe, expect, it } from 'vitest';
import { canonicalJson, contentHash } from './hash.js';

describe('contentHash', () => {
  it('ignores key order and undefined members', () => {
    expect(contentHash({ a: 1, b: [1, 2], c: undefined })).toBe(contentHash({ b: [1, 2], a: 1 }));
    expect(canonicalJson({ b: { y: 1, x: 2 }, a: null })).toBe('{"a":null,"b":{"x":2,"y":1}}');
  });
  it('distinguishes different content, including array order', () => {
    expect(contentHash({ a: [1, 2] })).not.toBe(contentHash({ a: [2, 1] }));
    expect(contentHash({ a: '1' })).not.toBe(contentHash({ a: 1 }));
  });
});
