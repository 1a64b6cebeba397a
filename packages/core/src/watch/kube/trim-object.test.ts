import { describe, expect, it } from 'vitest';
import { keepIdentityOnly, trimObject } from './trim-object.js';

describe('trimObject', () => {
  it('drops managedFields and keeps the rest', () => {
    const obj = { metadata: { name: 'a', managedFields: [{ manager: 'x' }], labels: { l: 'v' } }, spec: { x: 1 } };
    expect(trimObject(obj)).toEqual({ metadata: { name: 'a', labels: { l: 'v' } }, spec: { x: 1 } });
  });
});

describe('keepIdentityOnly', () => {
  it('keeps only what the informer cache reads: kind, apiVersion, namespace, name, resourceVersion', () => {
    const obj: Record<string, unknown> = {
      kind: 'EndpointSlice',
      apiVersion: 'discovery.k8s.io/v1',
      metadata: { namespace: 'ns', name: 'a-1', resourceVersion: '7', labels: { l: 'v' }, uid: 'u' },
      endpoints: [{ addresses: ['198.18.0.2'] }],
      ports: [],
    };
    keepIdentityOnly(obj);
    expect(obj).toEqual({
      kind: 'EndpointSlice',
      apiVersion: 'discovery.k8s.io/v1',
      metadata: { namespace: 'ns', name: 'a-1', resourceVersion: '7' },
    });
  });

  it.each([null, 'text', 3])('leaves a non-object alone (%s)', (value) => {
    expect(() => keepIdentityOnly(value)).not.toThrow();
  });
});
