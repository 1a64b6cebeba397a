// Runs inside the lab's VM: the kernel seam against the real IPVS of a Debian kernel, with the same
// cases the fake passes (src/ipvs/fake-ipvs.test.ts), and `ipvsadm -Ln` as the oracle of encoding.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNamespace, type NetworkNamespace } from '@kpng/lab';
import { IPVS_CASES, runIpvsCase, VS4, VS6 } from '../../src/ipvs/ipvs-cases.js';
import { NetlinkIpvs } from '../../src/ipvs/netlink-ipvs.js';

describe('NetlinkIpvs on the kernel answers like FakeIpvs', () => {
  let ns: NetworkNamespace;
  let kernel: NetlinkIpvs;
  beforeAll(async () => {
    ns = await createNamespace('ipvs-seam');
    kernel = new NetlinkIpvs({ netns: ns.name });
  });
  afterAll(async () => {
    kernel?.close();
    await ns?.delete();
  });

  it.each(IPVS_CASES.map((c) => [c.name, c] as const))('%s', (_name, c) => {
    kernel.flush();
    expect(runIpvsCase(kernel, c)).toEqual(c.expected);
  });

  it('what netlink wrote is what ipvsadm -Ln reads (addresses, ports, scheduler, persistence, weights)', async () => {
    kernel.flush();
    kernel.addVirtualServer({ ...VS4, persistentSeconds: 10800 });
    kernel.addRealServer(VS4, { address: '198.18.1.2', port: 8080, weight: 1 });
    kernel.addRealServer(VS4, { address: '198.18.1.3', port: 8081, weight: 0 });
    kernel.addVirtualServer({ ...VS6, scheduler: 'lc' });
    kernel.addRealServer(VS6, { address: '2001:db8:1::2', port: 5353, weight: 1 });
    const { stdout } = await ns.exec(['ipvsadm', '-Ln']);
    const lines = stdout.split('\n').map((l) => l.trim().replace(/\s+/g, ' '));
    expect(lines).toContain('TCP 198.19.0.10:80 rr persistent 10800');
    expect(lines).toContain('-> 198.18.1.2:8080 Masq 1 0 0');
    expect(lines).toContain('-> 198.18.1.3:8081 Masq 0 0 0');
    expect(lines).toContain('UDP [2001:db8:5e::a]:53 lc');
    expect(lines).toContain('-> [2001:db8:1::2]:5353 Masq 1 0 0');
    // And netlink reads back what ipvsadm writes.
    await ns.exec(['ipvsadm', '-A', '-u', '198.19.0.11:53', '-s', 'sh']);
    await ns.exec(['ipvsadm', '-a', '-u', '198.19.0.11:53', '-r', '198.18.1.4:53', '-m', '-w', '2']);
    const vs = kernel.listVirtualServers().find((v) => v.address === '198.19.0.11');
    expect(vs).toEqual({
      family: 'IPv4',
      protocol: 'UDP',
      address: '198.19.0.11',
      port: 53,
      scheduler: 'sh',
      persistentSeconds: 0,
    });
    expect(kernel.listRealServers(vs!)).toEqual([
      { address: '198.18.1.4', port: 53, weight: 2, activeConnections: 0, inactiveConnections: 0 },
    ]);
  });

  it('the socket programs only its own namespace', async () => {
    kernel.flush();
    kernel.addVirtualServer(VS4);
    const other = await createNamespace('ipvs-other');
    try {
      const { stdout } = await other.exec(['ipvsadm', '-Ln']);
      expect(stdout).not.toContain('198.19.0.10');
    } finally {
      await other.delete();
    }
  });
});
