import { describe, expect, it } from 'vitest';
import { createMetadataFactory } from './metadata.js';

describe('createMetadataFactory', () => {
  it('makes UUID-shaped uids, increasing resourceVersions and generateName suffixes', () => {
    const meta = createMetadataFactory(1, '2025-01-01T00:00:00Z', 7);
    expect(meta.uid()).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect([meta.nextResourceVersion(), meta.nextResourceVersion()]).toEqual(['7', '8']);
    expect(meta.nameSuffix()).toMatch(/^[bcdfghjklmnpqrstvwxz2456789]{5}$/);
    expect(meta.createdAt).toBe('2025-01-01T00:00:00Z');
  });

  it('is reproducible from the seed', () => {
    const a = createMetadataFactory(5, 'x');
    const b = createMetadataFactory(5, 'x');
    expect([a.uid(), a.nameSuffix()]).toEqual([b.uid(), b.nameSuffix()]);
    expect(createMetadataFactory(6, 'x').uid()).not.toBe(createMetadataFactory(5, 'x').uid());
  });
});
