/**
 * Test harness: a fake HNS node (network, pods of this node as CNI endpoints), a backend on it,
 * and helpers to sync node-local states and read the resulting load balancers.
 */
import { serviceKey, type Logger, type NodeLocalState, type ServiceKey, type SyncRequest } from '@kpng/core';
import { FakeHns } from '../hcn/fake/fake-hns.js';
import { canonicalGuid } from '../hcn/guid.js';
import type { HostComputeEndpoint, HostComputeLoadBalancer, RemoteSubnetRoutePolicySetting } from '../hcn/schema.js';
import { WinKernelBackend } from '../backend/win-kernel-backend.js';
import type { WinKernelBackendOptions } from '../backend/options.js';

export const NETWORK = 'cbr0';
export const HOST_MAC = '00-15-5d-01-02-03';
export const SOURCE_VIP = '198.18.1.254';

export interface FakeNodeSpec {
  readonly type?: 'L2Bridge' | 'Overlay';
  /** Pods of this node: CNI has created their HNS endpoints. */
  readonly localPods?: readonly string[];
  readonly remoteSubnets?: readonly RemoteSubnetRoutePolicySetting[];
  /** Adds the host's endpoint (the health-check VIP target) under this name. */
  readonly rootEndpoint?: string;
}

export interface FakeNode {
  readonly hns: FakeHns;
  readonly networkId: string;
  readonly backend: WinKernelBackend;
  /** HNS ID of each local pod. */
  readonly pods: ReadonlyMap<string, string>;
  sync(
    state: NodeLocalState,
    options?: { readonly full?: boolean; readonly updated?: readonly string[] },
  ): Promise<void>;
}

let revision = 0;

export const SILENT: Logger = { info() {}, warn() {}, error() {}, debug() {}, with: () => SILENT };

export function fakeNode(spec: FakeNodeSpec = {}, options: Partial<WinKernelBackendOptions> = {}): FakeNode {
  const hns = new FakeHns();
  const networkId = hns.addNetwork({
    name: NETWORK,
    type: spec.type ?? 'L2Bridge',
    ...(spec.remoteSubnets === undefined ? {} : { remoteSubnets: spec.remoteSubnets }),
  });
  const pods = new Map<string, string>();
  for (const ip of spec.localPods ?? []) pods.set(ip, hns.addLocalEndpoint(networkId, ip));
  if (spec.rootEndpoint !== undefined) hns.addLocalEndpoint(networkId, '198.18.1.2', spec.rootEndpoint);
  const backend = new WinKernelBackend({
    hns,
    networkName: NETWORK,
    hostMac: HOST_MAC,
    log: SILENT,
    ...(spec.type === 'Overlay' ? { sourceVip: SOURCE_VIP } : {}),
    ...options,
  });
  return {
    hns,
    networkId,
    backend,
    pods,
    sync: async (state, o = {}) => {
      const updated =
        o.updated === undefined
          ? undefined
          : new Set(o.updated.map((k) => (k.includes('/') ? k : serviceKey('default', k)) as ServiceKey));
      const req: SyncRequest = {
        state,
        changes: {
          triggerTimes: new Map(),
          nodeChanged: false,
          ...(updated === undefined ? {} : { updatedServices: updated }),
        },
        full: o.full ?? updated === undefined,
        revision: ++revision,
      };
      await backend.sync(req);
    },
  };
}

/** The load balancer on this frontend (`node` for NodePorts). */
export function lbOn(
  hns: FakeHns,
  vip: string,
  port: number,
  options: { readonly protocol?: number; readonly ipv6?: boolean } = {},
): HostComputeLoadBalancer | undefined {
  return hns.loadBalancers().find((lb) => {
    const m = lb.PortMappings?.[0];
    const frontend = lb.FrontendVIPs?.[0] ?? 'node';
    const v6 = ((lb.Flags ?? 0) & 2) !== 0;
    return (
      frontend === vip &&
      m?.ExternalPort === port &&
      (options.protocol === undefined || m.Protocol === options.protocol) &&
      (options.ipv6 === undefined || v6 === options.ipv6)
    );
  });
}

/** The IPs behind a load balancer's endpoint IDs. */
export function endpointIps(hns: FakeHns, lb: HostComputeLoadBalancer | undefined): string[] {
  const byId = new Map(hns.endpoints().map((e) => [canonicalGuid(e.ID ?? ''), e]));
  return (lb?.HostComputeEndpoints ?? [])
    .map((id) => byId.get(canonicalGuid(id))?.IpConfigurations?.[0]?.IpAddress ?? `?${id}`)
    .sort();
}

export function remoteEndpoints(hns: FakeHns): HostComputeEndpoint[] {
  return hns.endpoints().filter((e) => ((e.Flags ?? 0) & 1) !== 0);
}
