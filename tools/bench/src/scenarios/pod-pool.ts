import { shuffled, type Random } from '../random/prng.js';
import { podAddress, podCidrFor, podHostCount } from './address-plan.js';
import { nodeName, zoneName } from './nodes.js';

export interface PodPlacement {
  readonly address: string;
  readonly nodeIndex: number;
  readonly nodeName: string;
  readonly zone: string;
}

/**
 * Every pod address of every node, in a seeded order. 198.18.0.0/16 cannot give 100k endpoints an
 * address each, so Services take consecutive runs of the pool and wrap around: a pod may back several
 * Services (as in real clusters), but never appears twice in one Service.
 */
export interface PodPool {
  readonly size: number;
  take(count: number): PodPlacement[];
}

export function createPodPool(nodeCount: number, zones: number, random: Random): PodPool {
  const hostsPerNode = podHostCount(podCidrFor(0, nodeCount));
  const order = shuffled(
    Array.from({ length: nodeCount * hostsPerNode }, (_, i) => i),
    random,
  );
  const placement = (slot: number): PodPlacement => {
    const nodeIndex = Math.floor(slot / hostsPerNode);
    return {
      address: podAddress(podCidrFor(nodeIndex, nodeCount), slot % hostsPerNode),
      nodeIndex,
      nodeName: nodeName(nodeIndex),
      zone: zoneName(nodeIndex % zones),
    };
  };
  let cursor = 0;
  return {
    size: order.length,
    take(count) {
      if (count > order.length)
        throw new RangeError(`a Service cannot have ${count} endpoints: only ${order.length} pod addresses`);
      const out: PodPlacement[] = [];
      for (let i = 0; i < count; i++) {
        out.push(placement(order[cursor] as number));
        cursor = (cursor + 1) % order.length;
      }
      return out;
    },
  };
}
