import { describe, expect, it } from 'vitest';
import { service } from '../../../test/support/objects.js';
import { servicePaths } from './paths.js';

describe('servicePaths', () => {
  const dual = service('web', { clusterIPs: ['198.19.0.10', '2001:db8:5e::10'], port: 80, nodePort: 30080 });

  it('probes every cluster IP, and the NodePort on the given node', () => {
    expect(servicePaths(dual, { servicePort: 0, nodeIP: '198.18.255.1', ipFamily: undefined })).toEqual([
      { path: 'ClusterIP', family: 'IPv4', host: '198.19.0.10', port: 80 },
      { path: 'ClusterIP', family: 'IPv6', host: '2001:db8:5e::10', port: 80 },
      { path: 'NodePort', family: 'IPv4', host: '198.18.255.1', port: 30080 },
    ]);
  });

  it('keeps one family when asked', () => {
    expect(servicePaths(dual, { servicePort: 80, nodeIP: '', ipFamily: 'IPv6' })).toEqual([
      { path: 'ClusterIP', family: 'IPv6', host: '2001:db8:5e::10', port: 80 },
    ]);
  });

  it('explains why there is nothing to probe', () => {
    expect(servicePaths(dual, { servicePort: 81, nodeIP: '', ipFamily: undefined })).toBe(
      'the Service has no TCP port 81',
    );
    expect(
      servicePaths(service('h', { clusterIPs: ['None'] }), { servicePort: 0, nodeIP: '', ipFamily: undefined }),
    ).toMatch(/headless/);
    expect(servicePaths(service('c'), { servicePort: 0, nodeIP: '198.18.255.1', ipFamily: undefined })).toMatch(
      /has no nodePort/,
    );
  });
});
