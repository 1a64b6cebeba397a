import { UsageError } from '@kpng/core';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { backend, parseIpvsFlags } from './backend-module.js';
import { durationSeconds } from './duration.js';

describe('parseIpvsFlags (kube-proxy IPVS flags)', () => {
  it('defaults: rr, kernel timeouts, nothing excluded', () => {
    expect(parseIpvsFlags({})).toEqual({
      scheduler: 'rr',
      strictARP: false,
      tcpTimeout: 0,
      tcpFinTimeout: 0,
      udpTimeout: 0,
      excludeCIDRs: [],
      clusterCIDRs: [],
      masqueradeAll: false,
      nodePortAddresses: [],
      masqueradeBit: 14,
    });
  });

  it('every flag', () => {
    expect(
      parseIpvsFlags({
        'ipvs-scheduler': 'lc',
        'ipvs-strict-arp': true,
        'ipvs-tcp-timeout': '15m',
        'ipvs-tcpfin-timeout': '30s',
        'ipvs-udp-timeout': '300',
        'ipvs-exclude-cidrs': '10.96.0.0/12, fd00::/64',
        'cluster-cidr': '198.18.0.0/16',
        'masquerade-all': true,
        'masquerade-bit': '3',
        'nodeport-addresses': '198.18.255.1,2001:db8:ff::1',
      }),
    ).toEqual({
      scheduler: 'lc',
      strictARP: true,
      tcpTimeout: 900,
      tcpFinTimeout: 30,
      udpTimeout: 300,
      excludeCIDRs: ['10.96.0.0/12', 'fd00::/64'],
      clusterCIDRs: ['198.18.0.0/16'],
      masqueradeAll: true,
      masqueradeBit: 3,
      nodePortAddresses: ['198.18.255.1/32', '2001:db8:ff::1/128'],
    });
  });

  it.each([
    ['primary', ['primary']],
    ['198.18.0.0/16, 2001:db8::/32', ['198.18.0.0/16', '2001:db8::/32']],
    ['0.0.0.0/0', ['0.0.0.0/0']],
    ['', []],
  ])('--nodeport-addresses %j', (flag, expected) => {
    expect(parseIpvsFlags({ 'nodeport-addresses': flag }).nodePortAddresses).toEqual(expected);
  });

  it.each([
    [{ 'ipvs-scheduler': 'nope' }, /--ipvs-scheduler/],
    [{ 'ipvs-tcp-timeout': '5 minutes' }, /--ipvs-tcp-timeout/],
    [{ 'ipvs-exclude-cidrs': '10.0.0.0' }, /--ipvs-exclude-cidrs/],
    [{ 'nodeport-addresses': 'primary,10.0.0.0/8' }, /--nodeport-addresses: can't use both/],
    [{ 'nodeport-addresses': 'eth0' }, /--nodeport-addresses: not a CIDR/],
    [{ 'masquerade-bit': '40' }, /--masquerade-bit/],
  ])('refuses %j', (values, message) => {
    expect(() => parseIpvsFlags(values)).toThrow(UsageError);
    expect(() => parseIpvsFlags(values)).toThrow(message);
  });

  it("kpng-ipvs registers the backend's metrics on the program's registry", async () => {
    const registry = new Registry();
    const created = await backend.create(backend.parseFlags({}), { nodeName: 'n1', netns: 'kpng-t-unused', registry });
    expect(created.name).toBe('ipvs');
    expect(await registry.metrics()).toContain('# TYPE kpng_ipvs_virtual_servers gauge');
  });

  it('--write-timeout is parsed beside the IPVS flags (absent: the backend default)', () => {
    expect(backend.parseFlags({ 'write-timeout': '2s' })).toMatchObject({ writeTimeoutMs: 2_000 });
    expect(backend.parseFlags({})).not.toHaveProperty('writeTimeoutMs');
    expect(() => backend.parseFlags({ 'write-timeout': 'soon' })).toThrow(UsageError);
  });

  it('the module answers /proxyMode as kube-proxy does', () => {
    expect([backend.name, backend.program, backend.proxyMode]).toEqual(['ipvs', 'kpng-ipvs', 'ipvs']);
  });
});

describe('durationSeconds', () => {
  it.each([
    ['900s', 900],
    ['15m', 900],
    ['1h30m', 5400],
    ['0s', 0],
    ['42', 42],
    ['1500ms', 2],
    ['x', undefined],
    ['5m garbage', undefined],
  ])('%s', (text, seconds) => {
    expect(durationSeconds(text)).toBe(seconds);
  });
});
