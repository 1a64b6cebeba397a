import { describe, expect, it } from 'vitest';
import { nodeFieldSelector, proxyLabelSelector } from './selectors.js';

describe('proxyLabelSelector', () => {
  it.each([
    [undefined, '!service.kubernetes.io/service-proxy-name,!service.kubernetes.io/headless'],
    ['', '!service.kubernetes.io/service-proxy-name,!service.kubernetes.io/headless'],
    ['kpng-example', 'service.kubernetes.io/service-proxy-name=kpng-example,!service.kubernetes.io/headless'],
  ])('serviceProxyName %j -> %s', (name, want) => {
    expect(proxyLabelSelector(name)).toBe(want);
  });
});

describe('nodeFieldSelector', () => {
  it('selects one node by name, or all nodes', () => {
    expect(nodeFieldSelector('node-a')).toBe('metadata.name=node-a');
    expect(nodeFieldSelector(undefined)).toBeUndefined();
  });
});
