// ClientIP affinity belongs to the service PORT (semantics 3.7): whichever address a client used
// first (ClusterIP, NodePort, external IP), it meets the same endpoint through any other address of
// the same port. Traced as the kernel would run it: the first connection writes its entry after
// DNAT (`recorded`), the next one is traced with that entry in the dynamic set.
import type { IPFamily } from '@kpng/core';
import { describe, expect, it } from 'vitest';
import { render } from '../render/ruleset.js';
import { NODE_IPV4, NODE_IPV6, nodeState } from '../testing/fixtures.js';
import { allFeatures, clusterIPs, externalIPs, POD, type PodName } from '../testing/scenarios.js';
import { RulesetTracer } from './tracer.js';
import type { TracePacket, TraceRecord } from './types.js';

const CONFIG = {
  localDetector: { mode: 'ClusterCIDR', clusterCIDRs: ['198.18.0.0/22', '2001:db8::/46'] },
  serviceCIDRs: ['198.19.0.0/16', '2001:db8:5e::/64'],
} as const;
const EXTERNAL_CLIENT = { IPv4: '203.0.113.2', IPv6: '2001:db8:ee::2' };
const NODE = { IPv4: NODE_IPV4, IPv6: NODE_IPV6 };

type From = PodName | 'host' | 'external';
/** `cluster:N`, `external:N`, or `node:PORT` (a NodePort). */
type To = string;

describe.each(['IPv4', 'IPv6'] as const)('ClientIP affinity is per service port (%s)', (family: IPFamily) => {
  const v = family === 'IPv4' ? 0 : 1;
  const tracer = new RulesetTracer(render(nodeState(allFeatures()), CONFIG).get(family)!, {
    localAddresses: [NODE[family]],
  });
  const endpoint = (pod: PodName): string => (family === 'IPv4' ? `${POD[pod].v4}:8080` : `[${POD[pod].v6}]:8080`);
  const packet = (from: From, to: To): TracePacket => {
    const src =
      from === 'host'
        ? NODE[family]
        : from === 'external'
          ? EXTERNAL_CLIENT[family]
          : POD[from][family === 'IPv4' ? 'v4' : 'v6'];
    const [kind, n] = to.split(':') as [string, string];
    const dst =
      kind === 'cluster' ? clusterIPs(Number(n))[v] : kind === 'external' ? externalIPs(Number(n))[v] : NODE[family];
    return {
      family,
      src,
      proto: 'tcp',
      dst: dst as string,
      dport: kind === 'node' ? Number(n) : 80,
      ...(from === 'host' ? { fromHost: true } : {}),
    };
  };
  /** The entry the first connection writes when it lands on `pod`. */
  const firstVisit = (from: From, to: To, pod: PodName): TraceRecord => {
    const result = tracer.trace(packet(from, to));
    expect(result.sticky).toBe(true);
    const record = result.recorded.find((r) => r.endpoint === endpoint(pod));
    if (record === undefined) throw new Error(`no entry for ${pod} in ${JSON.stringify(result.recorded)}`);
    return record;
  };
  const then = (records: readonly TraceRecord[], from: From, to: To): string[] => {
    const dynamic = new Map([['affinity', records.map((r) => r.key)]]);
    return [...tracer.trace(packet(from, to), { dynamic }).endpoints];
  };

  it('every branch of a first connection records its own endpoint, keyed by client and port', () => {
    const result = tracer.trace(packet('external', 'cluster:19'));
    expect(result.recorded.map((r) => r.endpoint)).toEqual([endpoint('a'), endpoint('b')].sort());
    for (const r of result.recorded) {
      expect(r.set).toBe('affinity');
      expect(r.key).toHaveLength(2);
      expect(r.key[0]).toBe(EXTERNAL_CLIENT[family]);
    }
    // The second part hashes the endpoint with the port's number: one value per endpoint.
    expect(new Set(result.recorded.map((r) => r.key[1])).size).toBe(2);
  });

  it.each([
    { first: 'cluster:19', next: 'node:30088', pod: 'a' },
    { first: 'cluster:19', next: 'node:30088', pod: 'b' },
    { first: 'cluster:19', next: 'external:73', pod: 'b' },
    { first: 'node:30088', next: 'cluster:19', pod: 'a' },
    { first: 'external:73', next: 'node:30088', pod: 'a' },
    { first: 'external:73', next: 'external:73', pod: 'b' },
  ] as const)('$first then $next: the endpoint of the first ($pod)', ({ first, next, pod }) => {
    expect(then([firstVisit('external', first, pod)], 'external', next)).toEqual([endpoint(pod)]);
  });

  it('an entry holds for its own client only', () => {
    expect(then([firstVisit('external', 'cluster:19', 'a')], 'c', 'cluster:19')).toEqual([
      endpoint('a'),
      endpoint('b'),
    ]);
  });

  it('an entry of another sticky port does not apply, even for a shared endpoint', () => {
    expect(then([firstVisit('external', 'cluster:19', 'a')], 'external', 'cluster:21')).toEqual([
      endpoint('a'),
      endpoint('c'),
    ]);
  });

  it('externalTrafficPolicy Local: the endpoint is kept when the external list has it', () => {
    expect(then([firstVisit('external', 'cluster:21', 'a')], 'external', 'node:30089')).toEqual([endpoint('a')]);
  });

  it('externalTrafficPolicy Local: an endpoint elsewhere is not used for external traffic', () => {
    expect(then([firstVisit('external', 'cluster:21', 'c')], 'external', 'node:30089')).toEqual([endpoint('a')]);
  });

  it('externalTrafficPolicy Local: the short-circuit lists (host, local pods) keep any endpoint', () => {
    expect(then([firstVisit('host', 'cluster:21', 'c')], 'host', 'node:30089')).toEqual([endpoint('c')]);
    expect(then([firstVisit('b', 'node:30089', 'c')], 'b', 'cluster:21')).toEqual([endpoint('c')]);
  });

  it('an entry for an endpoint the port no longer has is ignored', () => {
    const gone = firstVisit('external', 'cluster:19', 'b');
    const shrunk = allFeatures().map((s) =>
      s.name === 'sticky' ? { ...s, endpoints: (s.endpoints ?? []).slice(0, 2) } : s,
    );
    const after = new RulesetTracer(render(nodeState(shrunk), CONFIG).get(family)!, { localAddresses: [NODE[family]] });
    const dynamic = new Map([['affinity', [gone.key]]]);
    expect(after.trace(packet('external', 'node:30088'), { dynamic }).endpoints).toEqual([endpoint('a')]);
  });
});
