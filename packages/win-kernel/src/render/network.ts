/**
 * What the backend needs to know of the HNS network: its type (overlay networks need remote
 * endpoints with provider addresses and a source VIP) and, on overlay, the remote subnet routes
 * that say which node (provider address) hosts which pod subnet.
 */
import { cidrContains, parseIP } from '@kpng/core';
import type { HostComputeNetwork, RemoteSubnetRoutePolicySetting } from '../hcn/schema.js';

export interface NetworkInfo {
  readonly id: string;
  readonly name: string;
  readonly overlay: boolean;
  readonly remoteSubnets: readonly RemoteSubnetRoutePolicySetting[];
}

export function networkInfo(network: HostComputeNetwork): NetworkInfo {
  const remoteSubnets = (network.Policies ?? [])
    .filter((p) => p.Type === 'RemoteSubnetRoute')
    .map((p) => p.Settings as RemoteSubnetRoutePolicySetting)
    .filter((s) => typeof s?.DestinationPrefix === 'string' && typeof s.ProviderAddress === 'string');
  return {
    id: network.ID ?? '',
    name: network.Name ?? '',
    overlay: (network.Type ?? '').toLowerCase() === 'overlay',
    remoteSubnets,
  };
}

/**
 * The provider address (the node) of a remote IP on an overlay network: the route whose subnet
 * holds it, or the route whose provider address it is (a node IP). Empty: outside the cluster.
 */
export function providerAddressOf(network: NetworkInfo, ip: string): string {
  let found = '';
  for (const route of network.remoteSubnets) {
    if (cidrContains(route.DestinationPrefix, ip) || route.ProviderAddress === ip) found = route.ProviderAddress;
  }
  return found;
}

/**
 * upstream's `conjureMac`: a locally administered MAC derived from the IP, unique enough for
 * remote endpoints (it never goes on the wire).
 */
export function conjureMac(prefix: string, ip: string): string {
  const parsed = parseIP(ip);
  if (parsed === undefined) return '02-11-22-33-44-55';
  const b = parsed.bytes;
  const quad = parsed.family === 'IPv4' ? [b[0], b[1], b[2], b[3]] : [b[15], b[14], b[13], b[12]];
  return [prefix, ...quad.map((x) => (x ?? 0).toString(16).padStart(2, '0'))].join('-');
}

/** Windows prints MACs with dashes; Node and Go with colons. */
export function dashedMac(mac: string): string {
  return mac.replaceAll(':', '-').toLowerCase();
}
