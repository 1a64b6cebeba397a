// scope 'north-south' (the ebpf backend's packet path): what enters the node is programmed exactly
// as scope 'all' programs it; ClusterIPs of TCP/UDP ports keep only their guard entry, and an
// endpoint change of a ClusterIP-only Service writes nothing.
import { serviceKey, type IPFamily, type SyncRequest } from '@kpng/core';
import { RecordingLogger } from '@kpng/core/testing';
import { FakeNft } from '@kpng/nftables/testing';
import type { Transaction } from '@kpng/nftables';
import { describe, expect, it } from 'vitest';
import { render } from '../render/ruleset.js';
import { nodeState, NODE_IPV4, NODE_IPV6 } from '../testing/fixtures.js';
import { allFeatures, clusterIPs, externalIPs, on, POD } from '../testing/scenarios.js';
import { RulesetTracer } from '../tracer/tracer.js';
import type { TracePacket, TraceResult } from '../tracer/types.js';
import { NftBackend } from './nft-backend.js';

const CONFIG = {
  localDetector: { mode: 'ClusterCIDR', clusterCIDRs: ['198.18.0.0/22', '2001:db8::/46'] },
  serviceCIDRs: ['198.19.0.0/16', '2001:db8:5e::/64'],
} as const;
const NORTH_SOUTH = { ...CONFIG, scope: 'north-south' } as const;
const NODE_PORTS = [30080, 30053, 30082, 30083, 30084, 30085, 30086, 30088, 30089];

const summary = (r: TraceResult): unknown => [r.verdict, r.endpoints, r.masqueradedEndpoints, r.sticky];

function entering(family: IPFamily): TracePacket[] {
  const v = family === 'IPv4' ? 'v4' : 'v6';
  const node = family === 'IPv4' ? NODE_IPV4 : NODE_IPV6;
  const outside = family === 'IPv4' ? '203.0.113.2' : '2001:db8:ee::2';
  const out: TracePacket[] = [];
  for (const port of NODE_PORTS) {
    const proto = port === 30053 ? 'udp' : 'tcp';
    out.push({ family, src: outside, proto, dst: node, dport: port });
    out.push({ family, src: POD.b[v], proto, dst: node, dport: port });
    out.push({ family, src: node, proto: 'tcp', dst: node, dport: port, fromHost: true });
  }
  for (const n of [68, 70, 71, 72, 73]) {
    const ip = externalIPs(n)[family === 'IPv4' ? 0 : 1] as string;
    out.push({ family, src: outside, proto: 'tcp', dst: ip, dport: 80 });
    out.push({ family, src: POD.b[v], proto: 'tcp', dst: ip, dport: 80 });
  }
  return out;
}

describe("nft scope 'north-south'", () => {
  const state = nodeState(allFeatures());
  const all = render(state, CONFIG);
  const northSouth = render(state, NORTH_SOUTH);

  for (const family of ['IPv4', 'IPv6'] as const) {
    const node = { localAddresses: [family === 'IPv4' ? NODE_IPV4 : NODE_IPV6] };
    const v = family === 'IPv4' ? 'v4' : 'v6';

    it(`${family}: NodePorts, external and LB IPs go exactly where scope 'all' sends them`, () => {
      const want = new RulesetTracer(all.get(family)!, node);
      const got = new RulesetTracer(northSouth.get(family)!, node);
      const packets = entering(family);
      expect(packets.length).toBe(NODE_PORTS.length * 3 + 10);
      for (const p of packets)
        expect(summary(got.trace(p)), `${p.src} -> ${p.dst}:${p.dport}`).toEqual(summary(want.trace(p)));
      // ... and those include balanced, refused and dropped ones.
      const verdicts = new Set(packets.map((p) => got.trace(p).verdict));
      expect([...verdicts]).toEqual(expect.arrayContaining(['dnat', 'drop', 'reject']));
    });

    it(`${family}: a TCP/UDP ClusterIP is not balanced, only guarded; SCTP's is balanced`, () => {
      const tracer = new RulesetTracer(northSouth.get(family)!, node);
      const reference = new RulesetTracer(all.get(family)!, node);
      const vip = (n: number): string => clusterIPs(n)[family === 'IPv4' ? 0 : 1] as string;
      for (const n of [10, 13, 15, 17, 19]) {
        const p: TracePacket = { family, src: POD.b[v], proto: 'tcp', dst: vip(n), dport: 80 };
        expect(reference.trace(p).verdict).toBe('dnat');
        expect(tracer.trace(p).verdict, `ClusterIP ${n}`).toBe('reject');
      }
      const sctp: TracePacket = { family, src: POD.b[v], proto: 'sctp', dst: vip(20), dport: 9 };
      expect(summary(tracer.trace(sctp))).toEqual(summary(reference.trace(sctp)));
      expect(tracer.trace(sctp).verdict).toBe('dnat');
      const keys = northSouth
        .get(family)!
        .elements.filter((e) => e.container === 'service-ips')
        .map((e) => e.key[0]);
      expect(keys).not.toContain(vip(10));
      expect(keys).toContain(vip(20));
    });
  }

  it('an endpoint change of a ClusterIP-only Service writes nothing; a NodePort Service is written', async () => {
    class CountingNft extends FakeNft {
      runs = 0;
      override async run(tx: Transaction): Promise<void> {
        this.runs++;
        await super.run(tx);
      }
    }
    const nft = new CountingNft();
    const backend = new NftBackend({ ...NORTH_SOUTH, nft, conntrack: false, log: new RecordingLogger() });
    const changes = (name: string): SyncRequest['changes'] => ({
      updatedServices: new Set([serviceKey('default', name)]),
      triggerTimes: new Map(),
      nodeChanged: false,
    });
    await backend.sync({ state, changes: { triggerTimes: new Map(), nodeChanged: false }, full: true, revision: 1 });
    expect(nft.runs).toBe(1);
    const edit = (name: string, pods: Parameters<typeof on>): ReturnType<typeof nodeState> =>
      nodeState(allFeatures().map((s) => (s.name === name ? { ...s, endpoints: on(...pods) } : s)));
    await backend.sync({
      state: edit('internal', ['a', 'b', 'c']),
      changes: changes('internal'),
      full: false,
      revision: 2,
    });
    expect(nft.runs).toBe(1);
    await backend.sync({ state: edit('web', ['a', 'b', 'c']), changes: changes('web'), full: false, revision: 3 });
    expect(nft.runs).toBe(2);
  });
});
