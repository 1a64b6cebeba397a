import {
  allowsConnection,
  podKey,
  type AllowRule,
  type Connection,
  type DirectionPolicy,
  type PeerGroup,
  type PeerGroupKey,
  type PodPolicy,
  type PolicyState,
} from '@kpng/core';
import { SILENT_LOGGER } from '@kpng/core/testing';
import type { Element, Rule } from '@kpng/nftables';
import { FakeNft } from '@kpng/nftables/testing';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { NetpolEnforcer } from '../backend/enforcer.js';
import { podMap, type Direction } from './names.js';
import { addressRange } from './ranges.js';
import { groupDiff } from './table.js';

const G1 = 'ns/a/Ingress/0' as PeerGroupKey;
const G2 = 'ns/b/Egress/0' as PeerGroupKey;
const NAMED = 'ns/b/Egress/0/named' as PeerGroupKey;
const PEERS = ['198.18.1.11', '198.18.1.12', '198.18.1.20', '198.18.7.1', '203.0.113.2'] as const;

/**
 * What the kernel (the fake's objects) says about a connection to (ingress) or from (egress) `ip`:
 * the verdict map, then the chain's rules, read back from their text (the shapes the renderer writes).
 */
function kernelVerdict(objects: readonly object[], direction: Direction, ip: string, c: Connection): boolean {
  const elements = objects.filter((o): o is Element => (o as Element).kind === 'element');
  const rules = objects.filter((o): o is Rule => (o as Rule).kind === 'rule');
  const jump = elements.find((e) => e.map === podMap(direction, 'IPv4') && e.key[0] === ip)?.value?.[0];
  if (jump === undefined) return true;
  const chain = jump.replace(/^jump /, '');
  const inSet = (set: string, key: string) => elements.some((e) => e.set === set && e.key.join(' . ') === key);
  const inRanges = (list: string, value: string, parse: (v: string) => bigint | undefined) =>
    list.split(', ').some((item) => {
      const [first, last = first] = item.split('-') as [string, string?];
      const v = parse(value);
      return v !== undefined && parse(first)! <= v && v <= parse(last)!;
    });
  const address = (v: string) => addressRange(v, 'IPv4')?.first;
  const port = (v: string) => BigInt(v);
  for (const { rule } of rules.filter((r) => r.chain === chain)) {
    if (rule === 'counter drop') return false;
    let rest = rule;
    let ok = true;
    const take = (re: RegExp): RegExpMatchArray | null => {
      const m = rest.match(re);
      if (m) rest = rest.slice(m[0].length);
      return m;
    };
    const endpoint = take(/^ip daddr \. meta l4proto \. th dport @(\S+) /);
    if (endpoint) ok &&= inSet(endpoint[1]!, `${c.peer} . ${c.protocol.toLowerCase()} . ${c.port}`);
    const set = take(/^ip [sd]addr @(\S+) /);
    if (set) ok &&= inSet(set[1]!, c.peer);
    const cidrs = take(/^ip [sd]addr (?:\{ ([^}]+) \}|([\d.-]+)) /);
    if (cidrs) ok &&= inRanges(cidrs[1] ?? cidrs[2]!, c.peer, address);
    const proto = take(/^meta l4proto (\w+) /);
    if (proto) ok &&= proto[1] === c.protocol.toLowerCase();
    const ports = take(/^th dport (?:\{ ([^}]+) \}|([\d-]+)) /);
    if (ports) ok &&= inRanges(ports[1] ?? ports[2]!, String(c.port), port);
    expect(rest).toBe(direction === 'ingress' ? 'accept' : 'return');
    if (ok) return true;
  }
  throw new Error(`chain ${chain} has no final drop`);
}

const range = fc
  .tuple(
    fc.constantFrom('TCP', 'UDP', 'SCTP' as const),
    fc.integer({ min: 0, max: 20 }),
    fc.integer({ min: 0, max: 5 }),
  )
  .map(([protocol, port, width]) => ({ protocol, port, endPort: port + width }));
const rule: fc.Arbitrary<AllowRule> = fc.oneof(
  fc.record(
    {
      peers: fc
        .record({
          group: fc.constantFrom(G1, G2, 'none' as const),
          cidrs: fc.subarray(['198.18.1.0/28', '198.18.1.12/32', '198.18.0.0/16', '2001:db8::/64']),
        })
        .map(({ group, cidrs }) => (group === 'none' ? { cidrs } : { group, cidrs })),
      ports: fc.array(range, { maxLength: 3 }),
    },
    { requiredKeys: [] },
  ),
  fc.constant({ endpoints: NAMED }),
);
const direction: fc.Arbitrary<DirectionPolicy> = fc.record({
  isolated: fc.boolean(),
  allow: fc.array(rule, { maxLength: 3 }),
});
const ipsGroup: fc.Arbitrary<PeerGroup> = fc
  .subarray([...PEERS, '2001:db8::1'])
  .map((ips) => ({ kind: 'ips', ips: [...ips].sort() }));
const namedGroup: fc.Arbitrary<PeerGroup> = fc
  .subarray(['198.18.1.11 TCP 5', '198.18.1.12 UDP 9', '198.18.1.20 TCP 80'])
  .map((list) => ({
    kind: 'endpoints',
    endpoints: list.map((s) => {
      const [ip, protocol, port] = s.split(' ') as [string, 'TCP' | 'UDP', string];
      return { ip, protocol, port: Number(port) };
    }),
  }));
/** One step: per pod (p0-p3; p3 reuses p0's IP) a new policy, the same object, or gone; new group contents or the same. */
const step = fc.record({
  pods: fc.array(fc.option(fc.option(fc.tuple(direction, direction), { nil: undefined }), { nil: null }), {
    minLength: 4,
    maxLength: 4,
  }),
  g1: fc.option(ipsGroup, { nil: undefined }),
  g2: fc.option(ipsGroup, { nil: undefined }),
  named: fc.option(namedGroup, { nil: undefined }),
  fails: fc.boolean(),
});
const connection = fc.record({
  peer: fc.constantFrom(...PEERS),
  protocol: fc.constantFrom('TCP', 'UDP', 'SCTP', 'ICMP' as const),
  port: fc.integer({ min: 0, max: 27 }),
});

class FailingOnce extends FakeNft {
  fail = false;
  override async run(tx: Parameters<FakeNft['run']>[0]): Promise<void> {
    if (this.fail) {
      this.fail = false;
      throw new Error('injected failure');
    }
    return super.run(tx);
  }
}

describe('PolicyTable', () => {
  test('property: after every sync the kernel gives the policy view reference verdict', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(step, { minLength: 1, maxLength: 6 }),
        fc.array(connection, { minLength: 6, maxLength: 6 }),
        async (steps, connections) => {
          const nft = new FailingOnce();
          const enforcer = new NetpolEnforcer({ nft, log: SILENT_LOGGER, families: ['IPv4'] });
          const pods = new Map<number, PodPolicy>();
          const groups = new Map<PeerGroupKey, PeerGroup>([
            [G1, { kind: 'ips', ips: [] }],
            [G2, { kind: 'ips', ips: [] }],
            [NAMED, { kind: 'endpoints', endpoints: [] }],
          ]);
          for (const s of steps) {
            s.pods.forEach((choice, i) => {
              if (choice === null) return; // the same object as before
              if (choice === undefined) pods.delete(i);
              else
                pods.set(i, {
                  namespace: 'ns',
                  name: `p${i}`,
                  ips: [`198.18.1.${10 + (i % 3)}`],
                  ingress: choice[0],
                  egress: choice[1],
                });
            });
            if (s.g1) groups.set(G1, s.g1);
            if (s.g2) groups.set(G2, s.g2);
            if (s.named) groups.set(NAMED, s.named);
            const state: PolicyState = {
              pods: new Map([...pods].map(([i, p]) => [podKey('ns', `p${i}`), p])),
              groups: new Map(groups),
            };
            nft.fail = s.fails;
            if (s.fails) {
              await expect(enforcer.sync(state)).rejects.toThrow('injected failure');
              continue;
            }
            await enforcer.sync(state);
            const objects = nft.objects();
            // An IP two pods list (one replacing the other): the first isolated one, in key order, judges.
            const sorted = [...state.pods].sort(([a], [b]) => (a < b ? -1 : 1)).map(([, pod]) => pod);
            for (const ip of new Set(sorted.flatMap((pod) => pod.ips))) {
              for (const d of ['ingress', 'egress'] as const) {
                const policyOf = (pod: PodPolicy) => (d === 'ingress' ? pod.ingress : pod.egress);
                const judge = sorted.find((pod) => pod.ips.includes(ip) && policyOf(pod).isolated);
                for (const c of connections) {
                  const probe = c.protocol === 'ICMP' ? { ...c, port: 0 } : c;
                  const expected = judge === undefined || allowsConnection(policyOf(judge), probe, state.groups);
                  expect(kernelVerdict(objects, d, ip, probe)).toBe(expected);
                }
              }
            }
          }
        },
      ),
      { numRuns: 100 },
    );
  });
});

describe('groupDiff', () => {
  const ADDRESSES = ['198.18.1.1', '198.18.1.2', '198.18.10.1', '2001:db8::1', '2001:db8::a', '203.0.113.9'] as const;
  const keys = (list: readonly (readonly string[])[]) => list.map((key) => key.join(' . ')).sort();

  test('the merge of sorted groups gives what comparing their element maps gives, in each family', () => {
    fc.assert(
      fc.property(fc.subarray([...ADDRESSES]), fc.subarray([...ADDRESSES]), fc.boolean(), (a, b, shuffled) => {
        // Unsorted content (not the view's) takes the map comparison: the same answer either way.
        const before: PeerGroup = { kind: 'ips', ips: shuffled ? [...a].reverse() : [...a].sort() };
        const after: PeerGroup = { kind: 'ips', ips: [...b].sort() };
        for (const family of ['IPv4', 'IPv6'] as const) {
          const { removed, added } = groupDiff(before, after, family);
          const inFamily = (ip: string) => ip.includes(':') === (family === 'IPv6');
          expect(keys(removed)).toEqual(a.filter((ip) => !b.includes(ip) && inFamily(ip)).sort());
          expect(keys(added)).toEqual(b.filter((ip) => !a.includes(ip) && inFamily(ip)).sort());
        }
      }),
    );
  });
});
