// ClientIP affinity with real packets (semantics 3.7): it belongs to the service port, so a client
// that met endpoint X through the ClusterIP meets X again through the NodePort and an external IP;
// and it expires: after timeoutSeconds without a new connection, the choice is random again.
import type { IPFamily } from '@kpng/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NftBackend } from '../src/backend/nft-backend.js';
import { nodeState, type ServiceFixture } from '../src/testing/fixtures.js';
import { clusterIPs, externalIPs, on } from '../src/testing/scenarios.js';
import { clientNamespace, createLab, destination, E2E_CONFIG, fullSync, type Client } from './e2e-helpers.js';
import { kernelE2e, sweepLeftovers, type Lab } from './lab.js';

const e2e = await kernelE2e('nft backend: ClientIP affinity');

const BRIEF_SECONDS = 2;
const SERVICES: ServiceFixture[] = [
  {
    name: 'sticky',
    clusterIPs: clusterIPs(19),
    ports: [{ port: 80, nodePort: 30088 }],
    externalIPs: externalIPs(73),
    affinity: 300,
    endpoints: on('a', 'b', 'c', 'd'),
  },
  { name: 'brief', clusterIPs: clusterIPs(22), ports: [{ port: 80 }], affinity: BRIEF_SECONDS, endpoints: on('a', 'b', 'c', 'd') },
];
// Not the node itself: its source address depends on the destination (affinity is per client IP).
// Not a remote pod: it would meet remote endpoints asymmetrically (its own node's proxy does that).
const CLIENTS: readonly Client[] = ['external', 'a', 'b'];
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe.skipIf(!e2e.run)('nft backend in the lab: ClientIP affinity', () => {
  let lab: Lab;

  beforeAll(async () => {
    await sweepLeftovers();
    lab = await createLab();
    const backend = new NftBackend({ ...E2E_CONFIG, netns: lab.node.namespace.name });
    await backend.sync(fullSync(nodeState(SERVICES)));
  });
  afterAll(async () => {
    await lab?.delete();
  });

  const servers = async (family: IPFamily, from: Client, to: string, port: number, count: number): Promise<string[]> => {
    const results = await lab.probeRepeatedly(clientNamespace(lab, from), { proto: 'tcp', ip: destination(lab, family, to), port }, count);
    expect(results.filter((r) => !r.ok), JSON.stringify(results)).toEqual([]);
    return results.map((r) => r.server ?? '');
  };

  describe.each(['IPv4', 'IPv6'] as const)('%s', (family) => {
    // Four endpoints and three clients: per-address affinity would pass by chance 1 time in 64.
    it.each(CLIENTS)('%s: the endpoint met through the ClusterIP answers through the NodePort and the external IP', async (from) => {
      const [first] = await servers(family, from, 'cluster:19', 80, 1);
      expect(await servers(family, from, 'node', 30088, 4)).toEqual(Array(4).fill(first));
      expect(await servers(family, from, 'external:73', 80, 4)).toEqual(Array(4).fill(first));
      expect(await servers(family, from, 'cluster:19', 80, 2)).toEqual(Array(2).fill(first));
    });

    it(`expires after timeoutSeconds (${BRIEF_SECONDS} s) without a connection`, async () => {
      const [first] = await servers(family, 'external', 'cluster:22', 80, 1);
      expect(await servers(family, 'external', 'cluster:22', 80, 3)).toEqual(Array(3).fill(first));
      // After expiry the choice is random among four: some round within eight meets another endpoint.
      let other: string | undefined;
      for (let round = 0; round < 8 && other === undefined; round++) {
        await sleep(BRIEF_SECONDS * 1000 + 700);
        const [next] = await servers(family, 'external', 'cluster:22', 80, 1);
        if (next !== first) other = next;
      }
      expect(other).toBeDefined();
    });
  });
});
