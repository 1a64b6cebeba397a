import type { EndpointTarget } from './types.js';

/**
 * Stable slot numbers for endpoint lists. An endpoint keeps its slot while it stays in the list:
 * a newcomer fills a hole or is appended, and a hole left by a removal is filled by moving the
 * last endpoint into it. So one endpoint change rewrites at most two map elements. What is
 * remembered is the previous list itself (references to core's endpoints, no copies).
 */

/** `previous` and `current` hold endpoint ids (`ip:port`); the result is `current` in slot order. */
export function assignSlots(previous: readonly string[] | undefined, current: readonly string[]): string[] {
  if (previous === undefined || previous.length === 0) return [...current];
  const wanted = new Set(current);
  const slots: (string | undefined)[] = previous.map((id) => (wanted.has(id) ? id : undefined));
  const placed = new Set(slots.filter((id): id is string => id !== undefined));
  const newcomers = current.filter((id) => !placed.has(id));
  let next = 0;
  for (let i = 0; i < slots.length && next < newcomers.length; i++) {
    if (slots[i] === undefined) slots[i] = newcomers[next++];
  }
  while (next < newcomers.length) slots.push(newcomers[next++]);
  // Compact: trailing holes go, and each remaining hole takes the last endpoint.
  const trim = (): void => {
    while (slots.length > 0 && slots[slots.length - 1] === undefined) slots.pop();
  };
  trim();
  for (let i = 0; i < slots.length; i++) {
    if (slots[i] === undefined) {
      slots[i] = slots.pop();
      trim();
    }
  }
  return slots as string[];
}

/** What one Service's render assigned: slot orders per endpoint list, and sticky port numbers. */
interface Assigned {
  readonly lists: ReadonlyMap<string, readonly EndpointTarget[]>;
  readonly ports: ReadonlyMap<string, number>;
}

const endpointId = (ep: EndpointTarget): string => `${ep.ip}:${ep.port}`;

/** `current` in slot order, continuing from `previous` (same members in the same order: as they are). */
function continueSlots<T extends EndpointTarget>(
  previous: readonly EndpointTarget[] | undefined,
  current: readonly T[],
): readonly T[] {
  if (previous === undefined || previous.length === 0) return current;
  if (
    previous.length === current.length &&
    previous.every((ep, i) => ep.ip === current[i]?.ip && ep.port === current[i]?.port)
  )
    return current;
  const byId = new Map(current.map((ep) => [endpointId(ep), ep]));
  return assignSlots(previous.map(endpointId), [...byId.keys()]).map((id) => byId.get(id) as T);
}

/** The slot orders (and sticky port numbers) of one Service, as a render assigns them. */
export class ServiceSlots {
  readonly #previous: Assigned | undefined;
  readonly #allocate: () => number;
  readonly lists = new Map<string, readonly EndpointTarget[]>();
  readonly ports = new Map<string, number>();

  constructor(previous?: Assigned, allocate?: () => number) {
    this.#previous = previous;
    let next = 1;
    this.#allocate = allocate ?? (() => next++);
  }

  /** `current` (distinct endpoints) in slot order for `list`; remembered for the next render. */
  assign<T extends EndpointTarget>(list: string, current: readonly T[]): readonly T[] {
    const slots = continueSlots(this.#previous?.lists.get(list), current);
    if (slots.length > 0) this.lists.set(list, slots);
    return slots;
  }

  /**
   * The number of a sticky service port: kept while the port stays sticky, never reused within
   * the memory it comes from (a stale kernel entry can then never match another port).
   */
  portId(port: string): number {
    let id = this.ports.get(port) ?? this.#previous?.ports.get(port);
    if (id === undefined) id = this.#allocate();
    this.ports.set(port, id);
    return id;
  }
}

/** Slot assignments and sticky port numbers remembered between syncs, per Service. */
export class SlotMemory {
  readonly #services = new Map<string, Assigned>();
  #nextPortId = 1;

  /** A fresh assignment for one Service, continuing from what was remembered. */
  begin(service: string): ServiceSlots {
    return new ServiceSlots(this.#services.get(service), () => this.#nextPortId++);
  }

  /** Remembers what a render assigned; lists and ports it did not use are forgotten. */
  remember(service: string, slots: ServiceSlots): void {
    if (slots.lists.size === 0 && slots.ports.size === 0) this.#services.delete(service);
    else this.#services.set(service, { lists: slots.lists, ports: slots.ports });
  }

  forget(service: string): void {
    this.#services.delete(service);
  }

  /** Forgets every Service not in `present` (a render of every Service: the others are gone). */
  retain(present: { has(service: string): boolean }): void {
    for (const service of this.#services.keys()) if (!present.has(service)) this.#services.delete(service);
  }

  get size(): number {
    return this.#services.size;
  }
}
