import { describe, expect, it } from 'vitest';
import { plan, UPSTREAM_IPVS_IPSETS } from './leftovers.js';

const tables = { nftTable: 'kube-proxy', nftTables: ['kube-proxy', 'kpng'] };
const ALL = { IPv4: 'all', IPv6: 'all' };
const OWN = { IPv4: 'ipvs-mode', IPv6: 'ipvs-mode' };
const chains = (p: ReturnType<typeof plan>) => Object.fromEntries(p.iptables);

describe('plan: what a proxy starting in a mode removes after its first sync', () => {
  it('--cleanup removes every mode: both tables, both flavours whole, ipsets, IPVS', () => {
    const p = plan({ mode: 'cleanup', ...tables });
    expect(p).toMatchObject({ nftTables: ['kube-proxy', 'kpng'], ipsets: true, ipvs: true });
    expect(chains(p)).toEqual({ legacy: ALL, nft: ALL });
  });

  it('nftables mode takes its own table over, and removes every other thing', () => {
    const p = plan({ mode: 'nftables', ...tables });
    expect(p).toMatchObject({ nftTables: ['kpng'], ipsets: true, ipvs: true });
    expect(chains(p)).toEqual({ legacy: ALL, nft: ALL });
  });

  it('ipvs mode takes the virtual servers and kube-ipvs0 over; every KUBE-* chain and ipset goes', () => {
    const p = plan({ mode: 'ipvs', ...tables });
    expect(p).toMatchObject({ nftTables: ['kube-proxy', 'kpng'], ipsets: true, ipvs: false });
    expect(chains(p)).toEqual({ legacy: ALL, nft: ALL });
  });

  it.each([
    ['nft', { legacy: ALL, nft: OWN }],
    ['legacy', { legacy: OWN, nft: ALL }],
  ] as const)(
    'iptables mode (%s) keeps its flavour shared chains, removes ipvs mode own ones and the other flavour',
    (flavour, expected) => {
      const p = plan({ mode: 'iptables', flavour, ...tables });
      expect(p).toMatchObject({ nftTables: ['kube-proxy', 'kpng'], ipsets: true, ipvs: true });
      expect(chains(p)).toEqual(expected);
    },
  );

  it('iptables mode on one family: its flavour chains of the other family are leftovers', () => {
    const p = plan({ mode: 'iptables', flavour: 'nft', families: ['IPv4'], ...tables });
    expect(chains(p)).toEqual({ legacy: ALL, nft: { IPv4: 'ipvs-mode', IPv6: 'all' } });
  });

  it('iptables mode with an unknown flavour touches no chain (and so no ipset a chain may use)', () => {
    const p = plan({ mode: 'iptables', ...tables });
    expect(p.iptables.size).toBe(0);
    expect(p.ipsets).toBe(false);
  });

  it('kernelspace removes nothing of the Linux modes', () => {
    expect(plan({ mode: 'kernelspace', ...tables })).toMatchObject({ nftTables: [], ipsets: false, ipvs: false });
  });

  it("names upstream ipvs mode's 17 ipsets", () => {
    expect(new Set(UPSTREAM_IPVS_IPSETS).size).toBe(17);
  });
});
