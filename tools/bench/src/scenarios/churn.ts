import { parseCidr, type Cidr } from '../kube/ipv4.js';
import {
  MAX_ENDPOINTS_PER_SLICE,
  SERVICE_NAME_LABEL,
  TRIGGER_TIME_ANNOTATION,
  type Endpoint,
  type EndpointSliceObject,
  type ServiceObject,
} from '../kube/types.js';
import { forkRandom, type Random } from '../random/prng.js';
import { podAddress, podHostCount } from './address-plan.js';
import { buildEndpointSlice } from './endpoint-slices.js';
import { createMetadataFactory } from './metadata.js';
import { DEFAULT_CREATED_AT, type Scenario } from './scenario.js';

export const CHURN_KINDS = ['ready-flip', 'scale-up', 'scale-down', 'ip-change'] as const;
export type ChurnKind = (typeof CHURN_KINDS)[number];

export interface ChurnOptions {
  /** Changes per second (default 100). */
  readonly ratePerSecond?: number;
  /** Default 60: the sequence holds `ratePerSecond * durationSeconds` changes. */
  readonly durationSeconds?: number;
  /** Default: the scenario's seed. */
  readonly seed?: number;
  /** Epoch ms of the first scheduled change (default: one minute after the scenario's creation time). */
  readonly startTime?: number;
  /** Relative weights (default 40% Ready flips, 20% each of scale up, scale down, IP change). */
  readonly mix?: Readonly<Partial<Record<ChurnKind, number>>>;
}

export interface ChurnStep {
  /** 0-based position in the sequence. */
  readonly seq: number;
  /** When the change is due, from the start: `seq * 1000 / ratePerSecond`. */
  readonly offsetMs: number;
  /** What was done (a change that does not fit the chosen slice, like scaling down an empty one, becomes a scale up). */
  readonly kind: ChurnKind;
  /** The trigger-time annotation written on the slice (RFC 3339, ms). */
  readonly triggerTime: string;
  /** The slice's complete new state: a fresh object, earlier ones are never mutated. */
  readonly slice: EndpointSliceObject;
  /** True when the change needed a new slice (scale up of a Service whose slice is full). */
  readonly created: boolean;
}

export interface Churn {
  readonly total: number;
  readonly intervalMs: number;
  /**
   * The next change, or undefined after `total` of them. `now` (epoch ms) stamps the trigger time, so
   * a live benchmark records when it really made the change; by default the scheduled time is used.
   */
  next(now?: number): ChurnStep | undefined;
  /** Every slice as it stands after the changes so far. */
  slices(): readonly EndpointSliceObject[];
}

const DEFAULT_MIX: Readonly<Record<ChurnKind, number>> = {
  'ready-flip': 0.4,
  'scale-up': 0.2,
  'scale-down': 0.2,
  'ip-change': 0.2,
};

interface NodeSite {
  readonly name: string;
  readonly zone: string;
  readonly podCidr: Cidr;
}

function pickKind(random: Random, mix: Readonly<Record<ChurnKind, number>>): ChurnKind {
  const total = CHURN_KINDS.reduce((sum, k) => sum + mix[k], 0);
  let x = random.next() * total;
  for (const kind of CHURN_KINDS) {
    x -= mix[kind];
    if (x < 0) return kind;
  }
  return CHURN_KINDS[CHURN_KINDS.length - 1] as ChurnKind;
}

function serviceId(slice: EndpointSliceObject): string {
  return `${slice.metadata.namespace ?? ''}/${slice.metadata.labels?.[SERVICE_NAME_LABEL] ?? ''}`;
}

/**
 * A deterministic sequence of EndpointSlice changes on top of a scenario (the `churn` scenario: 100
 * changes per second for 60 s on s10k): Ready flips, scale up and down, pod IP changes. Same scenario
 * and options give the same sequence.
 */
export function createChurn(scenario: Scenario, options: ChurnOptions = {}): Churn {
  const rate = options.ratePerSecond ?? 100;
  const duration = options.durationSeconds ?? 60;
  if (!(rate > 0) || !(duration >= 0)) throw new RangeError('ratePerSecond must be > 0 and durationSeconds >= 0');
  const mix = { ...DEFAULT_MIX, ...options.mix };
  if (CHURN_KINDS.some((k) => !(mix[k] >= 0)) || CHURN_KINDS.every((k) => mix[k] === 0))
    throw new RangeError('mix weights must be >= 0, not all 0');
  const total = Math.round(rate * duration);
  const intervalMs = 1000 / rate;
  const seed = options.seed ?? scenario.seed;
  const createdAt = scenario.nodes[0]?.metadata.creationTimestamp ?? DEFAULT_CREATED_AT;
  const startTime = options.startTime ?? Date.parse(createdAt) + 60_000;
  const random = forkRandom(seed, 'churn');

  const maxResourceVersion = [...scenario.nodes, ...scenario.services, ...scenario.endpointSlices].reduce(
    (max, o) => Math.max(max, Number(o.metadata.resourceVersion) || 0),
    0,
  );
  const meta = createMetadataFactory(seed ^ 0x5eed, createdAt, maxResourceVersion + 1);
  const sites: NodeSite[] = scenario.nodes.map((n) => ({
    name: n.metadata.name,
    zone: n.metadata.labels?.['topology.kubernetes.io/zone'] ?? '',
    podCidr: parseCidr(n.spec.podCIDR),
  }));
  const siteByName = new Map(sites.map((s) => [s.name, s]));
  const servicesById = new Map<string, ServiceObject>(
    scenario.services.map((s) => [`${s.metadata.namespace ?? ''}/${s.metadata.name}`, s]),
  );

  const slices: EndpointSliceObject[] = scenario.endpointSlices.slice();
  const slicesOfService = new Map<string, number[]>();
  slices.forEach((slice, i) => {
    const id = serviceId(slice);
    slicesOfService.set(id, [...(slicesOfService.get(id) ?? []), i]);
  });
  if (slices.length === 0 || sites.length === 0)
    throw new Error('churn needs a scenario with EndpointSlices and nodes');

  const addressesOfService = (id: string): Set<string> =>
    new Set(
      (slicesOfService.get(id) ?? []).flatMap((i) =>
        (slices[i] as EndpointSliceObject).endpoints.map((e) => e.addresses[0] ?? ''),
      ),
    );

  /** A pod address on `site` that the Service does not use yet. */
  const freshAddress = (site: NodeSite, used: ReadonlySet<string>): string => {
    const hosts = podHostCount(site.podCidr);
    const first = random.int(hosts);
    for (let k = 0; k < hosts; k++) {
      const address = podAddress(site.podCidr, (first + k) % hosts);
      if (!used.has(address)) return address;
    }
    throw new Error(`node ${site.name} has no free pod address left`);
  };

  const newEndpoint = (id: string): Endpoint => {
    const site = random.pick(sites);
    return {
      addresses: [freshAddress(site, addressesOfService(id))],
      conditions: { ready: true, serving: true, terminating: false },
      nodeName: site.name,
      zone: site.zone,
    };
  };

  const stamp = (
    slice: EndpointSliceObject,
    endpoints: readonly Endpoint[],
    triggerTime: string,
  ): EndpointSliceObject => ({
    ...slice,
    metadata: {
      ...slice.metadata,
      resourceVersion: meta.nextResourceVersion(),
      generation: (slice.metadata.generation ?? 1) + 1,
      annotations: { ...slice.metadata.annotations, [TRIGGER_TIME_ANNOTATION]: triggerTime },
    },
    endpoints,
  });

  let seq = 0;
  return {
    total,
    intervalMs,
    slices: () => slices.slice(),
    next(now) {
      if (seq >= total) return undefined;
      const offsetMs = seq * intervalMs;
      const triggerTime = new Date(now ?? Math.round(startTime + offsetMs)).toISOString();
      const index = random.int(slices.length);
      const slice = slices[index] as EndpointSliceObject;
      const id = serviceId(slice);
      const endpoints = slice.endpoints.slice();
      let kind = pickKind(random, mix);
      if (endpoints.length === 0 && kind !== 'scale-up') kind = 'scale-up';
      let created = false;
      let updated: EndpointSliceObject;
      if (kind === 'scale-up' && endpoints.length >= MAX_ENDPOINTS_PER_SLICE) {
        const service = servicesById.get(id);
        if (!service) throw new Error(`slice ${slice.metadata.name} names no Service`);
        const names = new Set(
          (slicesOfService.get(id) ?? []).map((i) => (slices[i] as EndpointSliceObject).metadata.name),
        );
        const fresh = buildEndpointSlice(service, slice.ports, [newEndpoint(id)], meta, triggerTime, names);
        updated = { ...fresh, metadata: { ...fresh.metadata, creationTimestamp: triggerTime.replace(/\.\d+Z$/, 'Z') } };
        slices.push(updated);
        slicesOfService.set(id, [...(slicesOfService.get(id) ?? []), slices.length - 1]);
        created = true;
      } else {
        const at = random.int(Math.max(endpoints.length, 1));
        const current = endpoints[at];
        if (kind === 'scale-up') endpoints.push(newEndpoint(id));
        else if (current && kind === 'scale-down') endpoints.splice(at, 1);
        else if (current && kind === 'ready-flip') {
          const ready = !current.conditions.ready;
          endpoints[at] = { ...current, conditions: { ready, serving: ready, terminating: false } };
        } else if (current) {
          const site = siteByName.get(current.nodeName ?? '') ?? random.pick(sites);
          endpoints[at] = { ...current, addresses: [freshAddress(site, addressesOfService(id))] };
        }
        updated = stamp(slice, endpoints, triggerTime);
        slices[index] = updated;
      }
      return { seq: seq++, offsetMs, kind, triggerTime, slice: updated, created };
    },
  };
}
