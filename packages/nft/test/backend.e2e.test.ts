// The nft backend programming a real node: the lab's node namespace gets the rules, and real TCP
// and UDP connections from local pods, remote pods, the node itself and an external client show
// where each Service feature sends them, in IPv4 and IPv6 (semantics 3.x, checklist items noted).
import type { IPFamily } from '@kpng/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NftBackend } from '../src/backend/nft-backend.js';
import { nodeState } from '../src/testing/fixtures.js';
import { allFeatures, type PodName } from '../src/testing/scenarios.js';
import {
  clientAddress,
  clientNamespace,
  createLab,
  destination,
  E2E_CONFIG,
  fullSync,
  type Client,
} from './e2e-helpers.js';
import { kernelE2e, sweepLeftovers, type Lab, type ProbeResult } from './lab.js';

const e2e = await kernelE2e('nft backend: every feature');

interface Case {
  readonly name: string;
  readonly from: Client;
  readonly to: string;
  readonly port: number;
  readonly proto?: 'tcp' | 'udp';
  /** The pods that must answer (all of them, and nobody else), or the failure. */
  readonly expect: readonly PodName[] | 'refused' | 'timeout';
  /** Whether the endpoint sees the client's own address. */
  readonly source?: 'kept' | 'masqueraded';
  /** Every answer comes from one pod (ClientIP affinity). */
  readonly sticky?: boolean;
}

const CASES: readonly Case[] = [
  { name: 'ClusterIP from a local pod reaches every endpoint, source kept (items 2, 5)', from: 'b', to: 'cluster:10', port: 80, expect: ['a', 'c'], source: 'kept' },
  // (A remote pod's ClusterIP traffic to an endpoint on its own node would return asymmetrically:
  // its own node's proxy handles that in a real cluster.)
  { name: 'ClusterIP from a remote pod to an endpoint here', from: 'd', to: 'cluster:11', port: 53, proto: 'udp', expect: ['b'], source: 'kept' },
  { name: 'ClusterIP from the node itself', from: 'host', to: 'cluster:10', port: 80, expect: ['a', 'c'] },
  { name: 'ClusterIP from outside the cluster is masqueraded', from: 'external', to: 'cluster:10', port: 80, expect: ['a', 'c'], source: 'masqueraded' },
  { name: 'NodePort from an external client, masqueraded (item 11)', from: 'external', to: 'node', port: 30080, expect: ['a', 'c'], source: 'masqueraded' },
  { name: 'NodePort from a remote pod', from: 'd', to: 'node', port: 30080, expect: ['a', 'c'], source: 'masqueraded' },
  { name: 'NodePort from the node itself', from: 'host', to: 'node', port: 30080, expect: ['a', 'c'] },
  { name: 'UDP ClusterIP', from: 'a', to: 'cluster:11', port: 53, proto: 'udp', expect: ['b'], source: 'kept' },
  { name: 'UDP NodePort', from: 'external', to: 'node', port: 30053, proto: 'udp', expect: ['b'], source: 'masqueraded' },
  { name: 'no endpoints: ClusterIP refused (item 32)', from: 'b', to: 'cluster:12', port: 80, expect: 'refused' },
  { name: 'no endpoints: NodePort refused', from: 'external', to: 'node', port: 30082, expect: 'refused' },
  { name: 'no endpoints: external IP refused', from: 'external', to: 'external:68', port: 80, expect: 'refused' },
  { name: 'no endpoints: refused from the node itself', from: 'host', to: 'cluster:12', port: 80, expect: 'refused' },
  { name: 'ClusterIP on a port no Service exposes: refused', from: 'b', to: 'cluster:10', port: 81, expect: 'refused' },
  { name: 'LB IP from an allowed source', from: 'external', to: 'external:70', port: 80, expect: ['a', 'c'], source: 'masqueraded' },
  { name: 'LB IP from a source outside loadBalancerSourceRanges: dropped', from: 'external', to: 'external:71', port: 80, expect: 'timeout' },
  { name: 'source ranges do not apply to the NodePort', from: 'external', to: 'node', port: 30086, expect: ['a'], source: 'masqueraded' },
  { name: 'ETP Local NodePort: local endpoint only, source kept', from: 'external', to: 'node', port: 30084, expect: ['a'], source: 'kept' },
  { name: 'ETP Local external IP: local endpoint only, source kept', from: 'external', to: 'external:72', port: 80, expect: ['a'], source: 'kept' },
  { name: 'ETP Local from a local pod: short-circuit to every endpoint', from: 'b', to: 'node', port: 30084, expect: ['a', 'c'], source: 'kept' },
  { name: 'ETP Local from the node itself: every endpoint', from: 'host', to: 'node', port: 30084, expect: ['a', 'c'] },
  { name: 'ETP Local without a local endpoint: dropped', from: 'external', to: 'node', port: 30085, expect: 'timeout' },
  { name: 'ITP Local: local endpoints only (item 34)', from: 'd', to: 'cluster:17', port: 80, expect: ['a'], source: 'kept' },
  { name: 'ITP Local without a local endpoint: dropped', from: 'b', to: 'cluster:18', port: 80, expect: 'timeout' },
  { name: 'ClientIP affinity: one client always meets one endpoint (item 24)', from: 'c', to: 'cluster:19', port: 80, expect: ['a', 'b'], sticky: true },
  { name: 'ClientIP affinity through the NodePort (item 27)', from: 'external', to: 'node', port: 30088, expect: ['a', 'b'], sticky: true },
  { name: 'hairpin: a pod reaches itself through its Service (item 6)', from: 'a', to: 'cluster:10', port: 80, expect: ['a', 'c'] },
];

const ATTEMPTS = 16;

describe.skipIf(!e2e.run)('nft backend in the lab: every feature', () => {
  let lab: Lab;
  let backend: NftBackend;

  beforeAll(async () => {
    await sweepLeftovers();
    lab = await createLab();
    backend = new NftBackend({ ...E2E_CONFIG, netns: lab.node.namespace.name });
    await backend.sync(fullSync(nodeState(allFeatures())));
  });
  afterAll(async () => {
    await lab?.delete();
  });

  const run = async (family: IPFamily, c: Case): Promise<ProbeResult[]> => {
    const options = { proto: c.proto ?? 'tcp', ip: destination(lab, family, c.to), port: c.port, timeoutMs: 1_000 } as const;
    return lab.probeRepeatedly(clientNamespace(lab, c.from), options, Array.isArray(c.expect) ? ATTEMPTS : 1);
  };

  for (const family of ['IPv4', 'IPv6'] as const) {
    describe(family, () => {
      it.each(CASES)('$name', async (c) => {
        const results = await run(family, c);
        if (!Array.isArray(c.expect)) {
          expect(results.map((r) => r.error)).toEqual([c.expect]);
          return;
        }
        expect(results.filter((r) => !r.ok), JSON.stringify(results)).toEqual([]);
        const servers = new Set(results.map((r) => r.server));
        if (c.sticky === true) {
          expect(servers.size).toBe(1);
          expect(c.expect.map((p) => `pod-${p}`)).toContain([...servers][0]);
        } else {
          expect([...servers].sort()).toEqual(c.expect.map((p) => `pod-${p}`));
        }
        const own = clientAddress(family, c.from);
        if (c.source === 'kept') for (const r of results) expect(r.seenSource).toBe(own);
        if (c.source === 'masqueraded') for (const r of results) expect(r.seenSource).not.toBe(own);
        if (c.name.startsWith('hairpin')) {
          // The pod meets itself masqueraded (else its reply would bypass the node), others see it.
          for (const r of results) expect(r.seenSource === own).toBe(r.server !== 'pod-a');
        }
      });
    });
  }
});
