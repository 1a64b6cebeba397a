import { describe, expect, it } from 'vitest';
import type { NetworkInterfaceInfo } from 'node:os';
import { hostMacOf } from './host-mac.js';

const iface = (address: string, mac: string): NetworkInterfaceInfo =>
  ({
    address,
    mac,
    family: address.includes(':') ? 'IPv6' : 'IPv4',
    netmask: '',
    internal: false,
    cidr: null,
  }) as NetworkInterfaceInfo;

describe('host MAC (overlay source VIP and ClusterIP endpoints)', () => {
  it('is the MAC of the interface holding the node IP, dashed as HNS writes it', () => {
    const interfaces = {
      lo: [iface('127.0.0.1', '00:00:00:00:00:00')],
      Ethernet: [iface('198.18.255.1', '00:15:5D:01:02:03'), iface('2001:db8:ff::1', '00:15:5D:01:02:03')],
    };
    expect(hostMacOf('198.18.255.1', interfaces)).toBe('00-15-5d-01-02-03');
    expect(hostMacOf('2001:0db8:ff::1', interfaces)).toBe('00-15-5d-01-02-03');
    expect(hostMacOf('198.18.255.9', interfaces)).toBeUndefined();
  });
});
