/**
 * The Host Compute Network (HCN, "HNS v2") JSON schema, as far as a service proxy uses it. Field
 * names, casing and the "omit when zero" rule follow hcsshim's `hcn` package (the Go structs whose
 * `json.Marshal` output HNS has always been given), so the strings we pass are the strings
 * upstream kube-proxy passes.
 */

export interface SchemaVersion {
  readonly Major: number;
  readonly Minor: number;
}

/** Every object and query we send says v2.0. */
export const SCHEMA_V2: SchemaVersion = { Major: 2, Minor: 0 };

/** IANA protocol numbers (`LoadBalancerPortMapping.Protocol`). */
export const PROTOCOL_NUMBERS = { TCP: 6, UDP: 17, SCTP: 132 } as const;

/** `HostComputeLoadBalancer.Flags`. */
export const LoadBalancerFlags = {
  None: 0,
  /** Direct server return: replies leave from the backend without passing the VIP again. */
  DSR: 1,
  /** The VIPs and endpoints are IPv6. */
  IPv6: 2,
} as const;

/** `LoadBalancerPortMapping.Flags`. */
export const PortMappingFlags = {
  None: 0,
  /** Internal load balancing (hcsshim names it; upstream's proxier never sets it). */
  ILB: 1,
  /** The VIP is reachable from the host itself (upstream sets it on NodePorts). */
  LocalRoutedVIP: 2,
  /** DSR for NodePort access of the VIP (with preserve-destination). */
  UseMux: 4,
  /** Deliver with the VIP as destination address (the `preserve-destination` annotation). */
  PreserveDIP: 8,
  /** The frontend is an external address: NodePort, external IP, load-balancer IP (upstream's own constant, 16). */
  VipExternalIP: 16,
} as const;
export const KNOWN_PORT_MAPPING_FLAGS = 0x1f;
export const KNOWN_LOAD_BALANCER_FLAGS = 0x3;

/** `LoadBalancerPortMapping.DistributionType`. */
export const Distribution = {
  /** Per connection. */
  None: 0,
  SourceIPProtocol: 1,
  /** ClientIP session affinity. */
  SourceIP: 2,
} as const;

export interface LoadBalancerPortMapping {
  readonly Protocol?: number;
  readonly InternalPort?: number;
  readonly ExternalPort?: number;
  readonly DistributionType?: number;
  readonly Flags?: number;
}

export interface HostComputeLoadBalancer {
  readonly ID?: string;
  readonly HostComputeEndpoints?: readonly string[];
  readonly SourceVIP?: string;
  readonly FrontendVIPs?: readonly string[];
  readonly PortMappings?: readonly LoadBalancerPortMapping[];
  readonly SchemaVersion?: SchemaVersion;
  readonly Flags?: number;
}

/** `HostComputeEndpoint.Flags`. */
export const EndpointFlags = { None: 0, RemoteEndpoint: 1 } as const;

export interface EndpointPolicy {
  readonly Type: string;
  readonly Settings?: unknown;
}

export interface IpConfig {
  readonly IpAddress: string;
  readonly PrefixLength?: number;
}

export interface HostComputeEndpoint {
  readonly ID?: string;
  readonly Name?: string;
  readonly HostComputeNetwork?: string;
  readonly Policies?: readonly EndpointPolicy[];
  readonly IpConfigurations?: readonly IpConfig[];
  readonly MacAddress?: string;
  readonly Flags?: number;
  readonly SchemaVersion?: SchemaVersion;
}

/** `RemoteSubnetRoute` network policy settings (overlay networks: one per remote node's pod subnet). */
export interface RemoteSubnetRoutePolicySetting {
  readonly DestinationPrefix: string;
  readonly IsolationId?: number;
  readonly ProviderAddress: string;
  readonly DistributedRouterMacAddress?: string;
}

export interface NetworkPolicy {
  readonly Type: string;
  readonly Settings?: unknown;
}

export interface HostComputeNetwork {
  readonly ID?: string;
  readonly Name?: string;
  /** `Overlay`, `L2Bridge`, `NAT`, ... */
  readonly Type?: string;
  readonly Policies?: readonly NetworkPolicy[];
  readonly SchemaVersion?: SchemaVersion;
}

/** `HostComputeQuery`: `Filter` is itself a JSON document, as a string. */
export interface HostComputeQuery {
  readonly SchemaVersion: SchemaVersion;
  readonly Flags?: number;
  readonly Filter?: string;
}

/** hcsshim's `defaultQuery()` plus an optional filter, serialised the way Go does. */
export function queryJson(filter?: Readonly<Record<string, string>>): string {
  const query: HostComputeQuery =
    filter === undefined ? { SchemaVersion: SCHEMA_V2 } : { SchemaVersion: SCHEMA_V2, Filter: JSON.stringify(filter) };
  return JSON.stringify(query);
}

/**
 * Serialises a load balancer the way hcsshim's `json.Marshal` does: fixed field order, and every
 * empty or zero field left out (`omitempty`), so the settings string is canonical: two equal
 * load balancers give byte-identical strings.
 */
export function loadBalancerJson(lb: HostComputeLoadBalancer): string {
  return JSON.stringify(
    omitEmpty({
      ID: lb.ID,
      HostComputeEndpoints: lb.HostComputeEndpoints,
      SourceVIP: lb.SourceVIP,
      FrontendVIPs: lb.FrontendVIPs,
      PortMappings: lb.PortMappings?.map((m) =>
        omitEmpty({
          Protocol: m.Protocol,
          InternalPort: m.InternalPort,
          ExternalPort: m.ExternalPort,
          DistributionType: m.DistributionType,
          Flags: m.Flags,
        }),
      ),
      SchemaVersion: lb.SchemaVersion,
      Flags: lb.Flags,
    }),
  );
}

/** Serialises an endpoint in hcsshim's field order, empty fields left out. */
export function endpointJson(ep: HostComputeEndpoint): string {
  return JSON.stringify(
    omitEmpty({
      ID: ep.ID,
      Name: ep.Name,
      HostComputeNetwork: ep.HostComputeNetwork,
      Policies: ep.Policies,
      IpConfigurations: ep.IpConfigurations,
      MacAddress: ep.MacAddress,
      Flags: ep.Flags,
      SchemaVersion: ep.SchemaVersion,
    }),
  );
}

function omitEmpty<T extends Record<string, unknown>>(o: T): Partial<T> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) {
    if (v === undefined || v === '' || v === 0 || (Array.isArray(v) && v.length === 0)) continue;
    out[k] = v;
  }
  return out as Partial<T>;
}
