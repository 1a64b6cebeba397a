import { RecordingLogger } from '@kpng/core/testing';
import { describe, expect, it } from 'vitest';
import { withDefaults } from '../config/defaults.js';
import type { PartialConfiguration } from '../config/types.js';
import { loadMode } from './modes.js';
import { privilegedSetup, setupSysctls } from './privileged-setup.js';

const config = (partial: PartialConfiguration) => withDefaults({ conntrack: { maxPerCore: 0 }, ...partial });
const names = async (partial: PartialConfiguration) =>
  setupSysctls(config(partial), 2, await loadMode(partial.mode ?? 'iptables')).map((s) => s.name);
const TIMEOUTS = [
  'net/netfilter/nf_conntrack_tcp_timeout_established',
  'net/netfilter/nf_conntrack_tcp_timeout_close_wait',
];

describe("privileged set-up (upstream's platformSetup and NewProxier)", () => {
  it('iptables: route_localnet only when 127.0.0.1 takes NodePorts (localhostNodePorts, NodePort addresses)', async () => {
    expect(await names({ mode: 'iptables' })).toEqual([...TIMEOUTS, 'net/ipv4/conf/all/route_localnet']);
    expect(await names({ mode: 'iptables', nodePortAddresses: ['127.0.0.0/8'] })).toContain(
      'net/ipv4/conf/all/route_localnet',
    );
    expect(await names({ mode: 'iptables', nodePortAddresses: ['primary'] })).toEqual(TIMEOUTS);
    expect(await names({ mode: 'iptables', nodePortAddresses: ['198.18.0.0/16'] })).toEqual(TIMEOUTS);
    expect(await names({ mode: 'iptables', iptables: { localhostNodePorts: false } })).toEqual(TIMEOUTS);
  });

  it('nftables and ipvs: conntrack only here (ipvs mode adds its own through its backend)', async () => {
    expect(await names({ mode: 'nftables' })).toEqual(TIMEOUTS);
    expect(await names({ mode: 'ipvs' })).toEqual(TIMEOUTS);
  });

  it('every conntrack setting is fatal, as upstream; a refusal is returned by name and the rest still written', async () => {
    const writes: string[] = [];
    const access = {
      read: async () => 0,
      write: async (name: string, value: number) => {
        if (name.endsWith('close_wait')) throw new Error('permission denied');
        writes.push(`${name}=${value}`);
      },
    };
    const failures = await privilegedSetup(config({ mode: 'nftables' }), {
      cpuCores: 2,
      access,
      log: new RecordingLogger(),
      ctx: { platform: 'linux' },
    });
    expect(failures).toEqual([
      'cannot set sysctl net/netfilter/nf_conntrack_tcp_timeout_close_wait (permission denied)',
    ]);
    expect(writes).toEqual(['net/netfilter/nf_conntrack_tcp_timeout_established=86400']);
  });

  it('Windows: nothing', async () => {
    const access = { read: async () => 0, write: async () => Promise.reject(new Error('no /proc/sys')) };
    const log = new RecordingLogger();
    expect(
      await privilegedSetup(config({ mode: 'kernelspace' }), { cpuCores: 2, access, log, ctx: { platform: 'win32' } }),
    ).toEqual([]);
  });
});
