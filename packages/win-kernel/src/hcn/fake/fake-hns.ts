/**
 * An in-memory HNS for tests. It takes the same JSON settings strings the real one does and
 * enforces the same rules (fake/validate.ts): schema version, one valid port mapping, flag
 * combinations, endpoint references, one load balancer per (frontend, protocol, port, family),
 * no deleting an endpoint a load balancer still uses. Every mutating call is journaled, so a test
 * can assert that a sync touched exactly the load balancers it had to.
 */
import { canonicalIP } from '@kpng/core';
import { HcnError, HResult, errorRecordJson } from '../errors.js';
import { canonicalGuid } from '../guid.js';
import type { Hns } from '../hns.js';
import {
  EndpointFlags,
  SCHEMA_V2,
  type HostComputeEndpoint,
  type HostComputeLoadBalancer,
  type HostComputeNetwork,
  type RemoteSubnetRoutePolicySetting,
} from '../schema.js';
import { parseDocument, refuse, validateEndpoint, validateLoadBalancer } from './validate.js';

export type HnsCall =
  | { readonly op: 'createLoadBalancer'; readonly id: string; readonly settings: string }
  | { readonly op: 'deleteLoadBalancer'; readonly id: string }
  | { readonly op: 'createEndpoint'; readonly id: string; readonly settings: string }
  | { readonly op: 'deleteEndpoint'; readonly id: string };

type Mutation = HnsCall['op'];

export interface FakeNetworkSpec {
  readonly name: string;
  /** `Overlay` or `L2Bridge`. */
  readonly type: string;
  /** Overlay: remote nodes' pod subnets and their provider (node) addresses. */
  readonly remoteSubnets?: readonly RemoteSubnetRoutePolicySetting[];
}

interface StoredLb {
  readonly lb: HostComputeLoadBalancer;
  /** Its frontends: family|VIP (or <node>)|protocol|port. */
  readonly keys: readonly string[];
}

export class FakeHns implements Hns {
  readonly #networks = new Map<string, HostComputeNetwork>();
  readonly #endpoints = new Map<string, HostComputeEndpoint>();
  readonly #lbs = new Map<string, StoredLb>();
  readonly #failures: { op: Mutation; hresult: number; after: number }[] = [];
  /** Indexes, so that the fake stays linear at scale: frontend key -> load balancer, network|IP -> endpoint, endpoint -> users. */
  readonly #byFrontend = new Map<string, string>();
  readonly #byIp = new Map<string, string>();
  readonly #users = new Map<string, Set<string>>();
  #next = 1;
  /** Mutating calls that succeeded, in order. */
  readonly calls: HnsCall[] = [];

  /** Adds a network (what the CNI plugin creates). Returns its ID. */
  addNetwork(spec: FakeNetworkSpec): string {
    const id = this.#id('a');
    this.#networks.set(id, {
      ID: id,
      Name: spec.name,
      Type: spec.type,
      Policies: (spec.remoteSubnets ?? []).map((s) => ({ Type: 'RemoteSubnetRoute', Settings: s })),
      SchemaVersion: SCHEMA_V2,
    });
    return id;
  }

  /** Adds a local (pod) endpoint, as the CNI plugin does when a pod starts on this node. */
  addLocalEndpoint(networkId: string, ip: string, name = `pod-${ip}`): string {
    const id = this.#id('e');
    this.#endpoints.set(id, {
      ID: id,
      Name: name,
      HostComputeNetwork: networkId,
      IpConfigurations: [{ IpAddress: ip }],
      Flags: EndpointFlags.None,
      SchemaVersion: SCHEMA_V2,
    });
    this.#byIp.set(`${networkId}|${canonicalIP(ip)}`, id);
    return id;
  }

  /** Makes the `after`-th next call of `op` (0: the next one) fail with `hresult`. */
  failNext(op: Mutation, hresult: number, after = 0): void {
    this.#failures.push({ op, hresult, after });
  }

  /** Forgets the journal (e.g. between two syncs of a test). */
  clearCalls(): void {
    this.calls.length = 0;
  }

  loadBalancers(): HostComputeLoadBalancer[] {
    return [...this.#lbs.values()].map((s) => s.lb);
  }

  endpoints(): HostComputeEndpoint[] {
    return [...this.#endpoints.values()];
  }

  async getNetworkByName(name: string): Promise<HostComputeNetwork | undefined> {
    return [...this.#networks.values()].find((n) => n.Name === name);
  }

  async listEndpoints(networkId: string): Promise<HostComputeEndpoint[]> {
    const id = canonicalGuid(networkId);
    return [...this.#endpoints.values()].filter((e) => e.HostComputeNetwork === id);
  }

  async createEndpoint(networkId: string, settings: string): Promise<HostComputeEndpoint> {
    this.#maybeFail('createEndpoint', 'HcnCreateEndpoint');
    const network = this.#networks.get(canonicalGuid(networkId));
    if (network === undefined)
      refuse('HcnOpenNetwork', HResult.HCN_E_NETWORK_NOT_FOUND, `network ${networkId} not found`);
    const doc = parseDocument<HostComputeEndpoint>('HcnCreateEndpoint', settings);
    validateEndpoint(doc);
    if (doc.HostComputeNetwork !== undefined && canonicalGuid(doc.HostComputeNetwork) !== network.ID) {
      refuse(
        'HcnCreateEndpoint',
        HResult.HCN_E_INVALID_ENDPOINT,
        'HostComputeNetwork does not match the network handle',
      );
    }
    const ips = (doc.IpConfigurations ?? []).map((c) => `${network.ID}|${canonicalIP(c.IpAddress)}`);
    const clash = ips.map((k) => this.#byIp.get(k)).find((x) => x !== undefined);
    if (clash !== undefined)
      refuse(
        'HcnCreateEndpoint',
        HResult.HCN_E_INVALID_IP,
        `an endpoint with IP ${ips.join(',')} already exists (${clash})`,
      );
    const id = this.#id('e');
    const created: HostComputeEndpoint = { ...doc, ID: id, HostComputeNetwork: network.ID! };
    this.#endpoints.set(id, created);
    for (const k of ips) this.#byIp.set(k, id);
    this.calls.push({ op: 'createEndpoint', id, settings });
    return created;
  }

  async deleteEndpoint(id: string): Promise<void> {
    this.#maybeFail('deleteEndpoint', 'HcnDeleteEndpoint');
    const key = canonicalGuid(id);
    if (!this.#endpoints.has(key))
      refuse('HcnDeleteEndpoint', HResult.HCN_E_ENDPOINT_NOT_FOUND, `endpoint ${id} not found`);
    const [user] = this.#users.get(key) ?? [];
    if (user !== undefined)
      refuse(
        'HcnDeleteEndpoint',
        HResult.HCN_E_ENTITY_HAS_REFERENCES,
        `endpoint ${id} is used by load balancer ${user}`,
      );
    const ep = this.#endpoints.get(key)!;
    for (const c of ep.IpConfigurations ?? [])
      this.#byIp.delete(`${ep.HostComputeNetwork}|${canonicalIP(c.IpAddress)}`);
    this.#endpoints.delete(key);
    this.calls.push({ op: 'deleteEndpoint', id: key });
  }

  async listLoadBalancers(): Promise<HostComputeLoadBalancer[]> {
    return this.loadBalancers();
  }

  async createLoadBalancer(settings: string): Promise<HostComputeLoadBalancer> {
    this.#maybeFail('createLoadBalancer', 'HcnCreateLoadBalancer');
    const doc = parseDocument<HostComputeLoadBalancer>('HcnCreateLoadBalancer', settings);
    const family = validateLoadBalancer(doc, (id) => {
      const ep = this.#endpoints.get(canonicalGuid(id));
      return ep?.IpConfigurations?.map((c) => c.IpAddress);
    });
    const m = doc.PortMappings![0]!;
    const frontends = doc.FrontendVIPs?.length ? doc.FrontendVIPs.map((v) => canonicalIP(v)!) : ['<node>'];
    const keys = frontends.map((frontend) => `${family}|${frontend}|${m.Protocol}|${m.ExternalPort}`);
    for (const key of keys) {
      const clash = this.#byFrontend.get(key);
      // (doc) hcsshim's IsPortAlreadyExistsError: one load balancer per frontend, protocol and port.
      if (clash !== undefined)
        refuse(
          'HcnCreateLoadBalancer',
          HResult.HCN_E_PORT_ALREADY_EXISTS,
          `${key} is already used by load balancer ${clash}`,
        );
    }
    const id = this.#id('b');
    const lb: HostComputeLoadBalancer = {
      ...doc,
      ID: id,
      HostComputeEndpoints: doc.HostComputeEndpoints!.map((e) => canonicalGuid(e)),
    };
    this.#lbs.set(id, { lb, keys });
    for (const key of keys) this.#byFrontend.set(key, id);
    for (const ep of lb.HostComputeEndpoints!) {
      const users = this.#users.get(ep) ?? new Set<string>();
      users.add(id);
      this.#users.set(ep, users);
    }
    this.calls.push({ op: 'createLoadBalancer', id, settings });
    return lb;
  }

  async deleteLoadBalancer(id: string): Promise<void> {
    this.#maybeFail('deleteLoadBalancer', 'HcnDeleteLoadBalancer');
    const key = canonicalGuid(id);
    const stored = this.#lbs.get(key);
    if (stored === undefined) refuse('HcnDeleteLoadBalancer', HResult.ERROR_NOT_FOUND, `load balancer ${id} not found`);
    this.#lbs.delete(key);
    for (const k of stored.keys) this.#byFrontend.delete(k);
    for (const ep of stored.lb.HostComputeEndpoints ?? []) this.#users.get(ep)?.delete(key);
    this.calls.push({ op: 'deleteLoadBalancer', id: key });
  }

  #maybeFail(op: Mutation, operation: string): void {
    const i = this.#failures.findIndex((f) => f.op === op);
    if (i < 0) return;
    const f = this.#failures[i]!;
    if (f.after > 0) {
      f.after--;
      return;
    }
    this.#failures.splice(i, 1);
    throw new HcnError(operation, f.hresult, errorRecordJson(f.hresult, 'injected failure'));
  }

  #id(kind: string): string {
    return canonicalGuid(`${kind.repeat(8)}-0000-4000-8000-${(this.#next++).toString(16).padStart(12, '0')}`);
  }
}
