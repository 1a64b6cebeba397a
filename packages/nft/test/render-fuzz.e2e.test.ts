// Property: every node-local state core's validation admits renders to a transaction the real nft
// accepts. Fuzzed states (names as long and odd as the API allows, every protocol and port range,
// IPv4, IPv6 and dual-stack Services, external and LB IPs, source ranges, affinity, traffic
// policies, up to 200 endpoints a Service, four local-traffic detectors) are synced in full by a fresh
// nft backend whose transactions are only checked: `nft --check -f -` inside a namespace this file
// creates and deletes (one for every case), so nothing is applied, and the text reaching nft is the
// very text a real sync writes. A render nft refuses, or one the backend throws on, fails the case.
//
// The generated values are the API server's and core's: DNS labels and subdomains, canonical
// addresses under the lab's ranges, and the uniqueness the API server keeps across Services
// (ClusterIPs, NodePorts, health-check node ports), which core's per-object checks cannot see;
// external and LB IPs it does not keep unique, and neither do these.
import { formatIP, type NodeLocalState } from '@kpng/core';
import {
  fullSyncRequest,
  nodeState,
  OTHER_NODE,
  RecordingLogger,
  THIS_NODE,
  type ServiceFixture,
} from '@kpng/core/testing';
import { createNftClient, type Nft, type NftClient, type RunOptions, type Transaction } from '@kpng/nftables';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NftBackend } from '../src/backend/nft-backend.js';
import type { NftConfigInput } from '../src/render/config.js';
import { createNamespace, kernelE2e, sweepLeftovers, type NetworkNamespace } from './lab.js';

const e2e = await kernelE2e('nft render fuzz');
const RUNS = Number(process.env['KPNG_FUZZ_RUNS'] ?? 25);

/** An Nft that checks every transaction (`nft --check`) instead of running it. */
class CheckingNft implements Nft {
  checked = 0;
  constructor(private readonly real: NftClient) {}
  newTransaction(): Transaction {
    return this.real.newTransaction();
  }
  async run(tx: Transaction, options?: RunOptions): Promise<void> {
    if (tx.size === 0) throw new Error('an empty transaction: nothing would reach nft');
    await this.real.check(tx, options);
    this.checked++;
  }
  check(tx: Transaction, options?: RunOptions): Promise<void> {
    return this.real.check(tx, options);
  }
  listTable(...args: Parameters<Nft['listTable']>): ReturnType<Nft['listTable']> {
    return this.real.listTable(...args);
  }
  listElements(...args: Parameters<Nft['listElements']>): ReturnType<Nft['listElements']> {
    return this.real.listElements(...args);
  }
}

// Names: DNS-1123 labels (namespaces, port names) and subdomains (Service names), up to their limits.
const alnum = fc.constantFrom(...'a0z9m'.split(''));
const inner = fc.constantFrom(...'a0z9m-'.split(''));
const label = (max: number) =>
  fc.oneof(
    fc.tuple(alnum, fc.string({ unit: inner, maxLength: Math.min(12, max - 2) }), alnum).map(([a, m, b]) => a + m + b),
    alnum,
    fc.constant('x'.repeat(max)),
    fc.constant(`9${'-'.repeat(max - 2)}0`),
  );
const subdomain = fc.oneof(
  fc.array(label(63), { minLength: 1, maxLength: 4 }).map(
    (parts) =>
      parts
        .join('.')
        .slice(0, 253)
        .replace(/[-.]+$/, '') || 'a',
  ),
  fc.constant(['a'.repeat(63), 'b'.repeat(63), 'c'.repeat(63), 'd'.repeat(61)].join('.')),
);

const podIPv4 = fc
  .tuple(fc.integer({ min: 0, max: 3 }), fc.integer({ min: 1, max: 254 }))
  .map(([n, h]) => `198.18.${n}.${h}`);
const podIPv6 = fc
  .tuple(fc.integer({ min: 0, max: 3 }), fc.integer({ min: 1, max: 0xffff }))
  .map(([n, h]) => (n === 0 ? `2001:db8::${h.toString(16)}` : `2001:db8:${n}::${h.toString(16)}`));
// A small pool as often as a wide one: Services sharing an external or LB IP on the same port (the API
// server allows it; the smallest Service key wins the element) come up in most runs.
const host = (max: number) => fc.oneof(fc.integer({ min: 1, max: 3 }), fc.integer({ min: 1, max }));
const lbIPv4 = host(254).map((h) => `203.0.113.${h}`);
const lbIPv6 = host(0xffff).map((h) => `2001:db8:cb::${h.toString(16)}`);
const rangeV4 = fc.tuple(fc.integer({ min: 0, max: 32 }), fc.integer({ min: 0, max: 255 })).map(([len, b]) => {
  const bytes = [203, 0, 113, b].map((byte, i) => byte & (0xff << Math.max(0, Math.min(8, 8 * (i + 1) - len))) & 0xff);
  return `${formatIP({ family: 'IPv4', bytes })}/${len}`;
});
const rangeV6 = fc.integer({ min: 1, max: 0xff }).map((g) => `2001:db8:${g.toString(16)}::/48`);
const port = fc.oneof(fc.constantFrom(1, 53, 80, 443, 65535), fc.integer({ min: 1, max: 65535 }));

const endpoint = fc.record({
  ip: fc.oneof(podIPv4, podIPv6),
  node: fc.constantFrom(THIS_NODE as string, OTHER_NODE),
  ready: fc.boolean(),
  serving: fc.boolean(),
  terminating: fc.boolean(),
});

/** Service `i` of a state: its ClusterIPs, NodePorts and health-check port are its own. */
const service = (i: number): fc.Arbitrary<ServiceFixture> =>
  fc
    .record({
      name: subdomain,
      namespace: label(63),
      families: fc.constantFrom(['v4'], ['v6'], ['v4', 'v6'], ['v6', 'v4']),
      ports: fc.uniqueArray(
        fc.record({
          name: label(15),
          protocol: fc.constantFrom('TCP' as const, 'UDP' as const, 'SCTP' as const),
          port,
          targetPort: port,
          nodePort: fc.boolean(),
        }),
        { minLength: 1, maxLength: 6, selector: (p) => `${p.protocol}/${p.port}` },
      ),
      externalIPs: fc.array(fc.oneof(lbIPv4, lbIPv6), { maxLength: 3 }),
      loadBalancerIPs: fc.array(fc.oneof(lbIPv4, lbIPv6), { maxLength: 3 }),
      sourceRanges: fc.array(fc.oneof(rangeV4, rangeV6), { maxLength: 6 }),
      affinity: fc.option(fc.oneof(fc.constantFrom(1, 10800, 86400), fc.integer({ min: 1, max: 86400 })), {
        nil: undefined,
      }),
      externalLocal: fc.boolean(),
      internalLocal: fc.boolean(),
      endpoints: fc.oneof(
        { weight: 4, arbitrary: fc.array(endpoint, { maxLength: 8 }) },
        { weight: 1, arbitrary: fc.array(endpoint, { minLength: 100, maxLength: 200 }) },
      ),
    })
    .map((r) => ({
      // Names differ per Service (the API server keys them by namespace and name).
      name: `${r.name.slice(0, 250 - String(i).length)}-${i}`.replace(/^-/, 'a'),
      namespace: r.namespace,
      clusterIPs: r.families.map((f) =>
        f === 'v4' ? `198.19.${i >> 8}.${(i & 255) + 1}` : `2001:db8:5e::${(i + 1).toString(16)}`,
      ),
      ports: r.ports.map((p, k) => ({
        // Unique in the Service (the API server's rule); a single port may have none.
        ...(r.ports.length === 1 && p.name.length < 3 ? {} : { name: `${k}${p.name}`.slice(0, 15).replace(/-+$/, '') }),
        protocol: p.protocol,
        port: p.port,
        targetPort: p.targetPort,
        ...(p.nodePort ? { nodePort: 30000 + i * 8 + k } : {}),
      })),
      externalIPs: r.externalIPs,
      loadBalancerIPs: r.loadBalancerIPs,
      sourceRanges: r.sourceRanges,
      ...(r.affinity === undefined ? {} : { affinity: r.affinity }),
      externalLocal: r.externalLocal,
      internalLocal: r.internalLocal,
      endpoints: uniqueBy(r.endpoints, (e) => e.ip),
    }));

const config: fc.Arbitrary<NftConfigInput> = fc.constantFrom<NftConfigInput>(
  { localDetector: { mode: 'ClusterCIDR', clusterCIDRs: ['198.18.0.0/17', '2001:db8::/40'] } },
  { localDetector: { mode: 'NodeCIDR' }, masqueradeAll: true },
  { localDetector: { mode: 'BridgeInterface', bridge: 'cbr0' } },
  { localDetector: { mode: 'InterfaceNamePrefix', prefix: 'veth' }, nodePortAddresses: ['0.0.0.0/0', '::/0'] },
);

const fuzzCase = fc
  .tuple(fc.integer({ min: 1, max: 6 }), config)
  .chain(([n, cfg]) => fc.tuple(fc.tuple(...Array.from({ length: n }, (_, i) => service(i))), fc.constant(cfg)));

/** Whether two of these Services claim one external or LB IP, protocol and port. */
function sharesAnEntryPoint(services: readonly ServiceFixture[]): boolean {
  const claimed = new Map<string, number>();
  services.forEach((s, i) => {
    for (const ip of [...(s.externalIPs ?? []), ...(s.loadBalancerIPs ?? [])])
      for (const p of s.ports ?? []) {
        const key = `${ip} ${p.protocol ?? 'TCP'} ${p.port}`;
        if (claimed.has(key) && claimed.get(key) !== i) claimed.set(key, -1);
        else claimed.set(key, i);
      }
  });
  return [...claimed.values()].includes(-1);
}

function uniqueBy<T>(list: readonly T[], key: (t: T) => string): T[] {
  const seen = new Set<string>();
  return list.filter((t) => !seen.has(key(t)) && seen.add(key(t)));
}

describe.skipIf(!e2e.run)('fuzzed node-local states through the real nft --check', () => {
  let ns: NetworkNamespace;
  let client: NftClient;
  beforeAll(async () => {
    await sweepLeftovers();
    ns = await createNamespace('nft-fuzz');
    client = await createNftClient({ netns: ns.name, shell: true });
  });
  afterAll(async () => {
    await client?.close();
    await ns?.delete();
  });

  it(
    'every full sync of a state core admits passes nft --check',
    async () => {
      const nft = new CheckingNft(client);
      const tally = { cases: 0, services: 0, endpoints: 0, ipv6: 0, shared: 0 };
      await fc.assert(
        fc.asyncProperty(fuzzCase, async ([services, cfg]) => {
          tally.cases++;
          const state: NodeLocalState = nodeState(services);
          // Core's node view admitted every generated Service.
          expect(state.services).toHaveLength(services.length);
          tally.services += services.length;
          tally.endpoints += services.reduce((a, s) => a + (s.endpoints?.length ?? 0), 0);
          tally.ipv6 += services.filter((s) => s.clusterIPs.some((ip) => ip.includes(':'))).length;
          if (sharesAnEntryPoint(services)) tally.shared++;
          // A fresh backend: its first sync writes each family's table whole, as a start does.
          const backend = new NftBackend({
            ...cfg,
            nft,
            conntrack: false,
            serviceCIDRs: ['198.19.0.0/16', '2001:db8:5e::/64'],
            log: new RecordingLogger(),
          });
          const before = nft.checked;
          await backend.sync(fullSyncRequest(state, tally.cases));
          expect(nft.checked).toBeGreaterThan(before);
        }),
        { numRuns: RUNS },
      );
      console.log(
        `nft render fuzz: ${tally.cases} states (${tally.services} Services, ${tally.ipv6} with an IPv6 ClusterIP, ${tally.endpoints} endpoints, ${tally.shared} with an external or LB IP and port two Services claim), ${nft.checked} transactions passed nft --check`,
      );
    },
    // Not a bound on speed: vitest's default 30 s would end a slow run of RUNS checks on a loaded machine.
    Math.max(300_000, RUNS * 3_000),
  );

  it('the check can fail: nft refuses a transaction naming a chain that does not exist', async () => {
    const tx = client.newTransaction();
    tx.add({ kind: 'table', family: 'ip', name: 'kpng-fuzz' });
    tx.add({ kind: 'rule', family: 'ip', table: 'kpng-fuzz', chain: 'missing', rule: 'accept' });
    await expect(new CheckingNft(client).run(tx)).rejects.toThrow();
  });
});
