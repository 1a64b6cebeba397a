import { describe, expect, it } from 'vitest';
import { withDefaults } from '../config/defaults.js';
import { conntrackSysctls } from './conntrack.js';

describe('conntrackSysctls', () => {
  it('plans the defaults: max(32768 x cores, 131072) and the two TCP timeouts, each fatal (upstream platformSetup)', () => {
    expect(conntrackSysctls(withDefaults().conntrack, 2)).toEqual([
      { name: 'net/netfilter/nf_conntrack_max', value: 131_072, fatal: true },
      { name: 'net/netfilter/nf_conntrack_tcp_timeout_established', value: 86_400, fatal: true },
      { name: 'net/netfilter/nf_conntrack_tcp_timeout_close_wait', value: 3_600, fatal: true },
    ]);
    expect(conntrackSysctls(withDefaults().conntrack, 8)[0]).toEqual({
      name: 'net/netfilter/nf_conntrack_max',
      value: 262_144,
      fatal: true,
    });
  });

  it('leaves zeros alone and adds the optional settings when set', () => {
    const ct = withDefaults({
      conntrack: {
        maxPerCore: 0,
        tcpEstablishedTimeout: 0,
        tcpCloseWaitTimeout: 0,
        tcpBeLiberal: true,
        udpTimeout: 30_000,
        udpStreamTimeout: 120_000,
      },
    }).conntrack;
    expect(conntrackSysctls(ct, 4)).toEqual([
      { name: 'net/netfilter/nf_conntrack_tcp_be_liberal', value: 1, fatal: true },
      { name: 'net/netfilter/nf_conntrack_udp_timeout', value: 30, fatal: true },
      { name: 'net/netfilter/nf_conntrack_udp_timeout_stream', value: 120, fatal: true },
    ]);
  });
});
