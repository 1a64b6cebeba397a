import { describe, expect, it } from 'vitest';
import { ipvsSysctls, kernelVersion } from './sysctls.js';

describe('ipvs mode sysctls (upstream NewProxier)', () => {
  it('on a fixed kernel: conntrack, expire_*, ip_forward fatal; IPv6 forwarding only where IPv6 exists, not fatal', () => {
    expect(ipvsSysctls({ strictARP: false }, '6.1.0-27-amd64')).toEqual([
      { name: 'net.ipv4.vs.conntrack', value: 1, fatal: true },
      { name: 'net.ipv4.vs.expire_nodest_conn', value: 1, fatal: true },
      { name: 'net.ipv4.vs.expire_quiescent_template', value: 1, fatal: true },
      { name: 'net.ipv4.ip_forward', value: 1, fatal: true },
      { name: 'net.ipv6.conf.all.forwarding', value: 1, fatal: false, ipv6: true },
    ]);
  });

  it('strictARP adds arp_ignore=1 and arp_announce=2 (fatal)', () => {
    const names = ipvsSysctls({ strictARP: true }, '6.1.0').map((s) => `${s.name}=${s.value}${s.fatal ? '!' : ''}`);
    expect(names).toContain('net.ipv4.conf.all.arp_ignore=1!');
    expect(names).toContain('net.ipv4.conf.all.arp_announce=2!');
  });

  it.each([
    ['4.0.9', false],
    ['4.1.0', true],
    ['5.8.18', true],
    ['5.9.0', false],
    ['6.12.1+deb13', false],
    ['not-a-kernel', false],
  ])('conn_reuse_mode=0 on kernel %s: %s', (release, set) => {
    const plan = ipvsSysctls({ strictARP: false }, release);
    expect(plan.some((s) => s.name === 'net.ipv4.vs.conn_reuse_mode' && s.value === 0 && s.fatal)).toBe(set);
  });

  it('kernelVersion reads major.minor', () => {
    expect(kernelVersion('5.15.0-91-generic')).toEqual([5, 15]);
    expect(kernelVersion('x')).toBeUndefined();
  });
});
