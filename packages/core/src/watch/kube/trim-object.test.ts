import { describe, expect, it } from 'vitest';
import { trimObject } from './trim-object.js';

describe('trimObject', () => {
  it('drops managedFields and keeps the rest', () => {
    const obj = { metadata: { name: 'a', managedFields: [{ manager: 'x' }], labels: { l: 'v' } }, spec: { x: 1 } };
    expect(trimObject(obj)).toEqual({ metadata: { name: 'a', labels: { l: 'v' } }, spec: { x: 1 } });
  });
});
