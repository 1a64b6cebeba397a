import { shuffled, type Random } from '../random/prng.js';

export const NODE_PORT_MIN = 30000;
export const NODE_PORT_MAX = 32767;

/** Hands out NodePorts (and health check node ports) from the default range in a seeded order, each once. */
export interface NodePortAllocator {
  allocate(): number;
  readonly allocated: number;
}

export function createNodePortAllocator(random: Random): NodePortAllocator {
  const range = Array.from({ length: NODE_PORT_MAX - NODE_PORT_MIN + 1 }, (_, i) => NODE_PORT_MIN + i);
  const order = shuffled(range, random);
  let next = 0;
  return {
    allocate() {
      const port = order[next];
      if (port === undefined) {
        throw new RangeError(`NodePort range ${NODE_PORT_MIN}-${NODE_PORT_MAX} exhausted after ${order.length} ports`);
      }
      next++;
      return port;
    },
    get allocated() {
      return next;
    },
  };
}
