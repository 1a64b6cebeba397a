import { describe, expect, it } from 'vitest';
import { serviceKey, servicePortKey, sliceKey } from './types.js';

describe('model keys', () => {
  it('formats kube-proxy style names', () => {
    const svc = serviceKey('default', 'web');
    expect(svc).toBe('default/web');
    expect(servicePortKey(svc, 'http', 'TCP')).toBe('default/web:http/TCP');
    expect(servicePortKey(svc, '', 'UDP')).toBe('default/web:/UDP');
    expect(sliceKey('default', 'web-abc')).toBe('default/web-abc');
  });
});
