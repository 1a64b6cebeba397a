/**
 * The seam between the backend and HNS: object-level calls with the JSON settings strings HCN
 * takes. `NativeHns` implements it over computenetwork.dll (each call opens, queries and closes
 * handles like hcsshim does); `FakeHns` implements it in memory, enforcing HNS's rules.
 */
import type { HostComputeEndpoint, HostComputeLoadBalancer, HostComputeNetwork } from './schema.js';

export interface Hns {
  /** The network named `name` (HcnEnumerateNetworks with a Name filter), or undefined. */
  getNetworkByName(name: string): Promise<HostComputeNetwork | undefined>;
  /** Every endpoint of the network, local and remote. */
  listEndpoints(networkId: string): Promise<HostComputeEndpoint[]>;
  /** HcnCreateEndpoint on the network; `settings` is a HostComputeEndpoint document. */
  createEndpoint(networkId: string, settings: string): Promise<HostComputeEndpoint>;
  deleteEndpoint(id: string): Promise<void>;
  listLoadBalancers(): Promise<HostComputeLoadBalancer[]>;
  /** HcnCreateLoadBalancer; `settings` is a HostComputeLoadBalancer document. Returns it with its ID. */
  createLoadBalancer(settings: string): Promise<HostComputeLoadBalancer>;
  deleteLoadBalancer(id: string): Promise<void>;
  close?(): void;
}
