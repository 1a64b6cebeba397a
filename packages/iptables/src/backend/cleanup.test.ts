import { describe, expect, it } from 'vitest';
import { IptablesClient } from '../iptables/client.js';
import { FakeIptables } from '../iptables/fake/fake-iptables.js';
import { cleanupFamily } from './cleanup.js';

/** Upstream ipvs mode's shape in nat, beside 30,000 Service chains of iptables mode's shape. */
function ipvsNode(): string {
  const lines = ['*nat', ':PREROUTING ACCEPT [0:0]', ':KUBE-SERVICES - [0:0]', ':KUBE-NODE-PORT - [0:0]'];
  const rules = ['-A PREROUTING -m comment --comment "kubernetes service portals" -j KUBE-SERVICES'];
  for (let i = 0; i < 30_000; i++) {
    lines.push(`:KUBE-SVC-${String(i).padStart(16, '0')} - [0:0]`);
    rules.push(
      `-A KUBE-SERVICES -d 198.19.${i >> 8}.${i & 255}/32 -p tcp -m comment --comment "ns/svc-${i} -j KUBE-NODE-PORT" -j KUBE-SVC-${String(i).padStart(16, '0')}`,
    );
  }
  rules.push('-A KUBE-SERVICES -m addrtype --dst-type LOCAL -j KUBE-NODE-PORT');
  rules.push('-A KUBE-NODE-PORT -p tcp -j ACCEPT');
  return [...lines, ...rules, 'COMMIT', ''].join('\n');
}

describe('cleanupFamily', () => {
  it("scope ipvs-mode: removes ipvs mode's own chains and only the real jumps to them, in a 30,000-Service table, giving the event loop turns", async () => {
    const fake = new FakeIptables({ flavour: 'legacy' });
    const loaded = await fake.run(['iptables-legacy-restore', '--noflush'], ipvsNode());
    expect(loaded.exitCode, loaded.stderr).toBe(0);
    const client = new IptablesClient({ execer: fake, flavour: 'legacy' });
    let turns = 0;
    let counting = true;
    const tick = (): void => {
      turns++;
      if (counting) setImmediate(tick);
    };
    setImmediate(tick);
    const removed = await cleanupFamily(client, 'IPv4', 'ipvs-mode');
    counting = false;
    expect(removed).toEqual(['nat/KUBE-NODE-PORT']);
    expect(fake.chain('IPv4', 'nat', 'KUBE-NODE-PORT')).toBeUndefined();
    const services = fake.chain('IPv4', 'nat', 'KUBE-SERVICES') ?? [];
    // The comment that names KUBE-NODE-PORT after "-j" is not a jump: those 30,000 rules stay.
    expect(services).toHaveLength(30_000);
    expect(services.some((r) => r.endsWith('-j KUBE-NODE-PORT'))).toBe(false);
    expect(fake.chain('IPv4', 'nat', 'PREROUTING')).toHaveLength(1);
    // Other callbacks ran while the dumps were read and scanned (the scan yields every 10 ms of work).
    expect(turns).toBeGreaterThan(1);
  });
});
