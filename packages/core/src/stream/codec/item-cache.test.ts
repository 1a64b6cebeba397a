import { describe, expect, it } from 'vitest';
import { bulkCopy, DecodedItemCache } from './item-cache.js';

function decoder(): { decode: (label: string) => () => { label: string }; calls: string[] } {
  const calls: string[] = [];
  return { calls, decode: (label) => () => (calls.push(label), { label }) };
}

describe('DecodedItemCache', () => {
  it('reuses the object for identical bytes, even after the source buffer was overwritten', () => {
    for (const bulk of [false, true]) {
      const cache = new DecodedItemCache<{ label: string }>();
      const { decode, calls } = decoder();
      const first = Buffer.from('xxAAAAyy');
      cache.begin(bulk ? bulkCopy(first, 0, first.length) : undefined);
      const a = cache.get('k', first, 2, 6, decode('a'));
      cache.commit();
      first.fill(0); // the cache must hold its own copy
      const second = Buffer.from('AAAA');
      cache.begin(undefined);
      expect(cache.get('k', second, 0, 4, decode('again'))).toBe(a);
      cache.commit();
      expect(calls).toEqual(['a']);
    }
  });

  it('decodes changed bytes, forgets items a state did not contain, and keeps the old generation on discard', () => {
    const cache = new DecodedItemCache<{ label: string }>();
    const { decode, calls } = decoder();
    const buf = Buffer.from('AAAABBBB');
    cache.get('a', buf, 0, 4, decode('a1'));
    cache.get('b', buf, 4, 8, decode('b1'));
    cache.commit();
    const changed = Buffer.from('AAAACCCC');
    cache.get('a', changed, 0, 4, decode('a2'));
    cache.get('b', changed, 4, 8, decode('b2'));
    cache.discard();
    expect(cache.size).toBe(2);
    cache.get('b', buf, 4, 8, decode('b3'));
    cache.commit();
    expect(cache.size).toBe(1);
    cache.get('a', buf, 0, 4, decode('a3'));
    expect(calls).toEqual(['a1', 'b1', 'b2', 'a3']);
  });

  it('does not cache items without a key', () => {
    const cache = new DecodedItemCache<{ label: string }>();
    const { decode, calls } = decoder();
    const buf = Buffer.from('AAAA');
    cache.get(undefined, buf, 0, 4, decode('1'));
    cache.get(undefined, buf, 0, 4, decode('2'));
    cache.commit();
    expect(calls).toEqual(['1', '2']);
    expect(cache.isEmpty).toBe(true);
  });
});
