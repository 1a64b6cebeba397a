/**
 * One service port's endpoints in one family, read from the Service's EndpointSlices the way
 * kube-proxy's EndpointSliceCache does: matched by port name and protocol, keyed and de-duplicated
 * by `ip:port`, sorted by that key.
 */
import type { EndpointModel, EndpointSliceModel, IPFamily, Protocol } from '../model/types.js';
import type { EndpointCandidate } from './categorize-endpoints.js';
import { endpointString, familyOf } from './ip.js';
import type { LocalEndpoint } from './types.js';

export interface PortSelector {
  readonly name: string;
  readonly protocol: Protocol;
}

/** A slice port of one name and protocol, with its slice. */
export interface SlicePortMatch {
  readonly slice: EndpointSliceModel;
  /** The port number, resolved for this slice's pods. */
  readonly port: number;
}

/**
 * The slice ports of `slices` by `name/protocol`, each list in slice order: built once per Service
 * and family, so that a Service of P ports over slices of Q ports costs P + Q lookups, not P x Q.
 *
 * @param slices the Service's slices of one family, in a stable order (ties between duplicates go
 *   to the earlier slice).
 */
export function indexSlicePorts(slices: readonly EndpointSliceModel[]): ReadonlyMap<string, readonly SlicePortMatch[]> {
  const index = new Map<string, SlicePortMatch[]>();
  for (const slice of slices) {
    for (const slicePort of slice.ports) {
      if (slicePort.port === 0) continue;
      const key = portSelectorKey(slicePort);
      let list = index.get(key);
      if (!list) index.set(key, (list = []));
      list.push({ slice, port: slicePort.port });
    }
  }
  return index;
}

export function portSelectorKey(port: PortSelector): string {
  return [port.name, port.protocol].join('/');
}

/** @param matches the slice ports of the service port's name and protocol ({@link indexSlicePorts}). */
export function endpointCandidates(
  matches: readonly SlicePortMatch[],
  family: IPFamily,
  nodeName: string,
): EndpointCandidate[] {
  const found: Keyed[] = [];
  const indexByKey = new Map<string, number>();
  for (const { slice, port } of matches) {
    // The slice port carries the target port resolved for this slice's pods, so named target
    // ports with different numbers on different pods come out right.
    for (const ep of slice.endpoints) {
      if (familyOf(ep.address) !== family) continue;
      const key = endpointString(ep.address, port);
      const existing = indexByKey.get(key);
      if (existing === undefined) {
        indexByKey.set(key, found.length);
        found.push({ key, candidate: candidateOf(ep, port, nodeName) });
      } else if (found[existing]!.candidate.endpoint.terminating && !ep.terminating) {
        // The same ip:port in two slices (an endpoint moving between slices): the copy that is
        // not terminating wins.
        found[existing] = { key, candidate: candidateOf(ep, port, nodeName) };
      }
    }
  }
  found.sort(byKey);
  return found.map((f) => f.candidate);
}

interface Keyed {
  readonly key: string;
  readonly candidate: EndpointCandidate;
}

function byKey(a: Keyed, b: Keyed): number {
  return a.key < b.key ? -1 : a.key > b.key ? 1 : 0;
}

function candidateOf(ep: EndpointModel, port: number, nodeName: string): EndpointCandidate {
  const endpoint: LocalEndpoint = {
    ip: ep.address,
    port,
    ready: ep.ready,
    serving: ep.serving,
    terminating: ep.terminating,
    isLocal: ep.nodeName !== undefined && ep.nodeName !== '' && ep.nodeName === nodeName,
    ...(ep.nodeName !== undefined ? { nodeName: ep.nodeName } : {}),
    ...(ep.zone !== undefined ? { zone: ep.zone } : {}),
  };
  return {
    endpoint,
    ...(ep.zoneHints !== undefined ? { zoneHints: ep.zoneHints } : {}),
    ...(ep.nodeHints !== undefined ? { nodeHints: ep.nodeHints } : {}),
  };
}
