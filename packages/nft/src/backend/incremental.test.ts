// Partial syncs are only an optimisation: after any sequence of them, packets go where a fresh
// render of the same state sends them, and the fake kernel holds exactly what the store believes.
import type { IPFamily, ServiceKey, SyncRequest } from '@kpng/core';
import { serviceKey } from '@kpng/core';
import { describe, expect, it } from 'vitest';
import { FakeNft } from '@kpng/nftables/testing';
import { render } from '../render/ruleset.js';
import { nodeState, NODE_IPV4, NODE_IPV6, type ServiceFixture } from '../testing/fixtures.js';
import { RecordingLogger } from '@kpng/core/testing';
import { allFeatures, clusterIPs, on, POD, type PodName } from '../testing/scenarios.js';
import { RulesetTracer } from '../tracer/tracer.js';
import type { TracePacket } from '../tracer/types.js';
import { NftBackend } from './nft-backend.js';

const CONFIG = { localDetector: { mode: 'ClusterCIDR', clusterCIDRs: ['198.18.0.0/22', '2001:db8::/46'] } } as const;
const PODS: PodName[] = ['a', 'b', 'c', 'd'];

function mutate(services: ServiceFixture[], random: () => number): { services: ServiceFixture[]; changed: string[] } {
  const i = Math.floor(random() * services.length);
  const target = services[i] as ServiceFixture;
  const pods = PODS.filter(() => random() < 0.5);
  const roll = random();
  const next: ServiceFixture =
    roll < 0.6
      ? { ...target, endpoints: on(...pods) }
      : roll < 0.75
        ? { ...target, ...(target.affinity === undefined ? { affinity: 30 } : { affinity: undefined as never }) }
        : roll < 0.9
          ? { ...target, externalLocal: target.externalLocal !== true }
          : { ...target, internalLocal: target.internalLocal !== true };
  if (next.affinity === undefined) delete (next as { affinity?: number }).affinity;
  const copy = [...services];
  copy[i] = next;
  return { services: copy, changed: [target.name] };
}

function packets(family: IPFamily): TracePacket[] {
  const v = family === 'IPv4' ? 'v4' : 'v6';
  const node = family === 'IPv4' ? NODE_IPV4 : NODE_IPV6;
  const out: TracePacket[] = [];
  for (let n = 10; n <= 22; n++) {
    const vip = clusterIPs(n)[family === 'IPv4' ? 0 : 1] as string;
    out.push({ family, src: POD.b[v], proto: 'tcp', dst: vip, dport: 80 });
    out.push({ family, src: POD.d[v], proto: 'udp', dst: vip, dport: 53 });
  }
  for (const port of [30080, 30053, 30082, 30083, 30084, 30085, 30086, 30088, 30089]) {
    out.push({
      family,
      src: family === 'IPv4' ? '203.0.113.2' : '2001:db8:ee::2',
      proto: port === 30053 ? 'udp' : 'tcp',
      dst: node,
      dport: port,
    });
    out.push({ family, src: node, proto: 'tcp', dst: node, dport: port, fromHost: true });
  }
  return out;
}

describe('incremental syncs', () => {
  it('route every packet like a fresh render, after 60 random changes', async () => {
    let seed = 42;
    const random = (): number => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const nft = new FakeNft();
    const backend = new NftBackend({ ...CONFIG, nft, conntrack: false, log: new RecordingLogger() });
    let services = allFeatures();
    await backend.sync({
      state: nodeState(services),
      changes: { triggerTimes: new Map(), nodeChanged: false },
      full: true,
      revision: 1,
    });
    for (let step = 0; step < 60; step++) {
      const next = mutate(services, random);
      services = next.services;
      const state = nodeState(services);
      const updatedServices = new Set(
        next.changed.map((name) => serviceKey('default', name)),
      ) as ReadonlySet<ServiceKey>;
      const request: SyncRequest = {
        state,
        changes: { updatedServices, triggerTimes: new Map(), nodeChanged: false },
        full: false,
        revision: step + 2,
      };
      await backend.sync(request);
      const fresh = render(state, CONFIG);
      for (const family of ['IPv4', 'IPv6'] as const) {
        const node = { localAddresses: [family === 'IPv4' ? NODE_IPV4 : NODE_IPV6] };
        const incremental = new RulesetTracer(backend.rulesets().get(family)!, node);
        const reference = new RulesetTracer(fresh.get(family)!, node);
        for (const packet of packets(family)) {
          const got = incremental.trace(packet);
          const want = reference.trace(packet);
          const summary = (r: typeof got): unknown => [
            r.verdict,
            r.endpoints,
            r.masquerade,
            r.masqueradedEndpoints,
            r.sticky,
            r.recorded.map((e) => e.endpoint),
          ];
          expect(
            summary(got),
            `step ${step} ${family} ${packet.src} -> ${packet.dst}:${packet.dport}/${packet.proto}`,
          ).toEqual(summary(want));
        }
        // The fake kernel holds exactly the elements the store believes it applied.
        const table = family === 'IPv4' ? 'ip' : 'ip6';
        const held = nft
          .objects(table, 'kpng')
          .filter((o) => o.kind === 'element')
          .map((o) => (o.kind === 'element' ? `${o.set ?? o.map} ${o.key.join('.')} ${o.value?.join('.') ?? ''}` : ''))
          .sort();
        const believed = backend
          .rulesets()
          .get(family)!
          .elements.map((e) => `${e.container} ${e.key.join('.')} ${e.value?.join('.') ?? ''}`)
          .sort();
        expect(held).toEqual(believed);
        // ... and every chain with exactly the rules the store believes (sticky lookups are rewritten).
        const heldRules = nft
          .objects(table, 'kpng')
          .flatMap((o) => (o.kind === 'rule' ? [`${o.chain}: ${o.rule}`] : []))
          .sort();
        const believedRules = backend
          .rulesets()
          .get(family)!
          .chains.flatMap((c) => c.rules.map((r) => `${c.name}: ${r}`))
          .sort();
        expect(heldRules).toEqual(believedRules);
      }
    }
  });
});
