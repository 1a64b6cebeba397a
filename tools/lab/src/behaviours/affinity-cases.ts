/**
 * ClientIP affinity with real packets (semantics 3.7), for every Linux backend, with core's
 * `affinityScenario()` programmed: affinity belongs to the service port, so a client that met
 * endpoint X through the ClusterIP meets X again through the NodePort and an external IP; and it
 * expires: after timeoutSeconds without a new connection, the choice is random again.
 */
import { describe, expect, it } from 'vitest';
import type { Lab } from '../netns/lab.js';
import { clientNamespace, destination, type Client, type LabFamily } from './proxy-lab.js';

// Not the node itself: its source address depends on the destination (affinity is per client IP).
// Not a remote pod: it would meet remote endpoints asymmetrically (its own node's proxy does that).
const CLIENTS: readonly Client[] = ['external', 'a', 'b'];
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Declares the affinity cases per family; `briefSeconds` is the `brief` Service's timeout. */
export function affinityCases(getLab: () => Lab, briefSeconds: number): void {
  const servers = async (
    family: LabFamily,
    from: Client,
    to: string,
    port: number,
    count: number,
  ): Promise<string[]> => {
    const lab = getLab();
    const results = await lab.probeRepeatedly(
      clientNamespace(lab, from),
      { proto: 'tcp', ip: destination(lab, family, to), port },
      count,
    );
    expect(
      results.filter((r) => !r.ok),
      JSON.stringify(results),
    ).toEqual([]);
    return results.map((r) => r.server ?? '');
  };

  describe.each(['IPv4', 'IPv6'] as const)('%s', (family) => {
    // Four endpoints and three clients: per-address affinity would pass by chance 1 time in 64.
    it.each(CLIENTS)(
      '%s: the endpoint met through the ClusterIP answers through the NodePort and the external IP',
      async (from) => {
        const [first] = await servers(family, from, 'cluster:19', 80, 1);
        expect(await servers(family, from, 'node', 30088, 4)).toEqual(Array(4).fill(first));
        expect(await servers(family, from, 'external:73', 80, 4)).toEqual(Array(4).fill(first));
        expect(await servers(family, from, 'cluster:19', 80, 2)).toEqual(Array(2).fill(first));
      },
    );

    it(`expires after timeoutSeconds (${briefSeconds} s) without a connection`, async () => {
      const [first] = await servers(family, 'external', 'cluster:22', 80, 1);
      expect(await servers(family, 'external', 'cluster:22', 80, 3)).toEqual(Array(3).fill(first));
      // After expiry the choice is random among four: some round within eight meets another endpoint.
      let other: string | undefined;
      for (let round = 0; round < 8 && other === undefined; round++) {
        await sleep(briefSeconds * 1000 + 700);
        const [next] = await servers(family, 'external', 'cluster:22', 80, 1);
        if (next !== first) other = next;
      }
      expect(other).toBeDefined();
    });
  });
}
