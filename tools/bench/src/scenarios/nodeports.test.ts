import { describe, expect, it } from 'vitest';
import { createRandom } from '../random/prng.js';
import { NODE_PORT_MAX, NODE_PORT_MIN, createNodePortAllocator } from './nodeports.js';

describe('createNodePortAllocator', () => {
  it('hands out every port of the range exactly once, then fails', () => {
    const allocator = createNodePortAllocator(createRandom(9));
    const size = NODE_PORT_MAX - NODE_PORT_MIN + 1;
    const seen = new Set<number>();
    for (let i = 0; i < size; i++) {
      const port = allocator.allocate();
      expect(port >= NODE_PORT_MIN && port <= NODE_PORT_MAX).toBe(true);
      seen.add(port);
    }
    expect(seen.size).toBe(size);
    expect(allocator.allocated).toBe(size);
    expect(() => allocator.allocate()).toThrow(/exhausted/);
  });

  it('is reproducible from the seed', () => {
    const a = createNodePortAllocator(createRandom(1));
    const b = createNodePortAllocator(createRandom(1));
    expect([a.allocate(), a.allocate()]).toEqual([b.allocate(), b.allocate()]);
  });
});
