import { describe, expect, it } from 'vitest';
import { decodeLb, endpointKey, endpointValue, lbValue, serviceKey } from './layout.js';

describe('map layouts (bpf/sock_lb.c)', () => {
  it('services4 key: address, port (network order), protocol, pad', () => {
    expect(serviceKey('IPv4', '198.19.0.10', 80, 'TCP').toString('hex')).toBe('c613000a00500600');
    expect(serviceKey('IPv4', '198.19.0.10', 53, 'UDP').toString('hex')).toBe('c613000a00351100');
  });

  it('services6 key: 16-byte address, port, protocol, pad', () => {
    expect(serviceKey('IPv6', '2001:db8:5e::10', 443, 'TCP').toString('hex')).toBe(
      '20010db8005e00000000000000000010' + '01bb0600',
    );
  });

  it('refuses an address of the other family or none', () => {
    expect(() => serviceKey('IPv4', '2001:db8::1', 80, 'TCP')).toThrow(/not an IPv4 address/);
    expect(() => endpointValue('IPv6', 'nonsense', 80)).toThrow(/not an IPv6 address/);
  });

  it('lb value: id, count, affinity seconds, flags (host order) and back', () => {
    const lb = { id: 7, count: 3, affinitySeconds: 10800, flags: 1 };
    expect(lbValue(lb).toString('hex')).toBe('07000000' + '03000000' + '302a0000' + '01000000');
    expect(decodeLb(lbValue(lb))).toEqual(lb);
  });

  it('endpoint key (id, index) and value (address in 16 bytes, port, pad)', () => {
    expect(endpointKey(1, 2).toString('hex')).toBe('0100000002000000');
    expect(endpointValue('IPv4', '198.18.1.11', 8080).toString('hex')).toBe('c612010b' + '00'.repeat(12) + '1f900000');
  });
});
