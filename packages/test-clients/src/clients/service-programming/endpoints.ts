import { keyOf, type Endpoint, type EndpointSlice, type IPFamily } from '../../kube/objects.js';

/** A ready endpoint of the Service, as the probe recognises it. */
export interface ReadyEndpoint {
  /** `IPv4/web-2` (by name) or `IPv4/198.18.1.12` (no name). */
  readonly key: string;
  readonly family: IPFamily;
  /** The pod's name (targetRef) or hostname: what the endpoint answers with. */
  readonly name: string | undefined;
  readonly address: string;
}

export interface EndpointChanges {
  readonly added: readonly ReadyEndpoint[];
  readonly removed: readonly ReadyEndpoint[];
}

/**
 * The union of ready endpoints over a Service's EndpointSlices. Applying a slice reports which
 * endpoints became ready and which went away (an endpoint moving between slices is neither).
 */
export class EndpointSet {
  private readonly bySlice = new Map<string, ReadonlyMap<string, ReadyEndpoint>>();
  private readonly refs = new Map<string, { endpoint: ReadyEndpoint; count: number }>();

  apply(slice: EndpointSlice): EndpointChanges {
    return this.replace(keyOf(slice), readyEndpoints(slice));
  }

  remove(slice: EndpointSlice): EndpointChanges {
    return this.replace(keyOf(slice), new Map());
  }

  /** Ready endpoints of one family. */
  count(family: IPFamily): number {
    return [...this.refs.values()].filter((r) => r.endpoint.family === family).length;
  }

  has(key: string): boolean {
    return this.refs.has(key);
  }

  private replace(sliceKey: string, next: ReadonlyMap<string, ReadyEndpoint>): EndpointChanges {
    const previous = this.bySlice.get(sliceKey) ?? new Map<string, ReadyEndpoint>();
    if (next.size === 0) this.bySlice.delete(sliceKey);
    else this.bySlice.set(sliceKey, next);
    const before = new Map([...this.refs].map(([k, r]) => [k, r.endpoint]));
    for (const key of previous.keys()) {
      const ref = this.refs.get(key);
      if (ref && --ref.count === 0) this.refs.delete(key);
    }
    for (const [key, endpoint] of next) {
      const ref = this.refs.get(key);
      if (ref) ref.count += 1;
      else this.refs.set(key, { endpoint, count: 1 });
    }
    return {
      added: [...this.refs].filter(([k]) => !before.has(k)).map(([, r]) => r.endpoint),
      removed: [...before].filter(([k]) => !this.refs.has(k)).map(([, e]) => e),
    };
  }
}

function readyEndpoints(slice: EndpointSlice): Map<string, ReadyEndpoint> {
  const family = slice.addressType === 'IPv4' || slice.addressType === 'IPv6' ? slice.addressType : undefined;
  const out = new Map<string, ReadyEndpoint>();
  if (family === undefined) return out;
  for (const endpoint of slice.endpoints ?? []) {
    const address = endpoint.addresses?.[0];
    if (address === undefined || !isReady(endpoint)) continue;
    const name = endpoint.targetRef?.name ?? endpoint.hostname;
    const key = `${family}/${name ?? address}`;
    out.set(key, { key, family, name, address });
  }
  return out;
}

/** `conditions.ready` unset means ready (the API's documented default). */
function isReady(endpoint: Endpoint): boolean {
  return endpoint.conditions?.ready !== false;
}
