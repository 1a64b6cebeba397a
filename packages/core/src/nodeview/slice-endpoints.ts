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

/**
 * @param slices the Service's slices of `family`, in a stable order (ties between duplicates go to
 *   the earlier slice).
 */
export function endpointCandidates(
  slices: readonly EndpointSliceModel[],
  family: IPFamily,
  port: PortSelector,
  nodeName: string,
): EndpointCandidate[] {
  const found: Keyed[] = [];
  const indexByKey = new Map<string, number>();
  for (const slice of slices) {
    for (const slicePort of slice.ports) {
      // The slice port carries the target port resolved for this slice's pods, so named target
      // ports with different numbers on different pods come out right.
      if (slicePort.name !== port.name || slicePort.protocol !== port.protocol || slicePort.port === 0) continue;
      for (const ep of slice.endpoints) {
        if (familyOf(ep.address) !== family) continue;
        const key = endpointString(ep.address, slicePort.port);
        const existing = indexByKey.get(key);
        if (existing === undefined) {
          indexByKey.set(key, found.length);
          found.push({ key, candidate: candidateOf(ep, slicePort.port, nodeName) });
        } else if (found[existing]!.candidate.endpoint.terminating && !ep.terminating) {
          // The same ip:port in two slices (an endpoint moving between slices): the copy that is
          // not terminating wins.
          found[existing] = { key, candidate: candidateOf(ep, slicePort.port, nodeName) };
        }
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
