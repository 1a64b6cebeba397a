/**
 * What HNS refuses in a load balancer or endpoint document, as the fake enforces it. Each rule
 * names the HRESULT HNS answers with. Rules marked (doc) follow HCN's documented error table or
 * hcsshim's own checks; rules marked (model) are this project's reading of how upstream uses the
 * flags and have not been observed on a Windows node (see the README).
 */
import { ipFamilyOf } from '@kpng/core';
import { HcnError, HResult, errorRecordJson } from '../errors.js';
import {
  Distribution,
  KNOWN_LOAD_BALANCER_FLAGS,
  KNOWN_PORT_MAPPING_FLAGS,
  LoadBalancerFlags,
  PortMappingFlags,
  PROTOCOL_NUMBERS,
  type HostComputeEndpoint,
  type HostComputeLoadBalancer,
} from '../schema.js';

const PROTOCOLS = new Set<number>(Object.values(PROTOCOL_NUMBERS));
const DISTRIBUTIONS = new Set<number>(Object.values(Distribution));
const MAC_RE = /^[0-9a-f]{2}(-[0-9a-f]{2}){5}$/i;

export function refuse(operation: string, hresult: number, message: string): never {
  throw new HcnError(operation, hresult, errorRecordJson(hresult, message));
}

export function parseDocument<T>(operation: string, settings: string): T {
  try {
    const doc: unknown = JSON.parse(settings);
    if (doc === null || typeof doc !== 'object' || Array.isArray(doc))
      refuse(operation, HResult.HCN_E_INVALID_JSON, 'the settings are not a JSON object');
    return doc as T;
  } catch (e) {
    if (e instanceof HcnError) throw e;
    return refuse(operation, HResult.HCN_E_INVALID_JSON, `invalid JSON: ${(e as Error).message}`);
  }
}

const isPort = (n: unknown): n is number => typeof n === 'number' && Number.isInteger(n) && n > 0 && n <= 65535;
const familyOf = (ip: unknown) => (typeof ip === 'string' ? ipFamilyOf(ip) : undefined);

/** Checks one load balancer document; returns the family it serves. `endpointIp` resolves an endpoint ID. */
export function validateLoadBalancer(
  lb: HostComputeLoadBalancer,
  endpointIps: (id: string) => readonly string[] | undefined,
): 'IPv4' | 'IPv6' {
  const op = 'HcnCreateLoadBalancer';
  const bad = (message: string): never => refuse(op, HResult.HCN_E_INVALID_POLICY, message);
  // (doc) every HCN v2 document carries SchemaVersion 2.x.
  if (lb.SchemaVersion?.Major !== 2) refuse(op, HResult.HCN_E_INVALID_JSON, 'SchemaVersion 2.0 is required');
  if (lb.ID !== undefined) bad('ID is assigned by HNS');
  const flags = lb.Flags ?? 0;
  if ((flags & ~KNOWN_LOAD_BALANCER_FLAGS) !== 0) bad(`unknown load balancer flags ${flags}`);
  const family = (flags & LoadBalancerFlags.IPv6) !== 0 ? 'IPv6' : 'IPv4';
  // (model) one port mapping per load balancer, as hcsshim's AddLoadBalancer and upstream build them.
  const mappings = lb.PortMappings ?? [];
  if (mappings.length !== 1) bad(`exactly one port mapping is expected, got ${mappings.length}`);
  const m = mappings[0]!;
  if (!PROTOCOLS.has(m.Protocol ?? 0)) bad(`unsupported protocol ${m.Protocol}`);
  // (doc) HCN_E_INVALID_INTERNAL_PORT: "the internal port must exist and cannot be zero".
  if (!isPort(m.InternalPort))
    refuse(op, HResult.HCN_E_INVALID_INTERNAL_PORT, `invalid internal port ${m.InternalPort}`);
  if (!isPort(m.ExternalPort)) bad(`invalid external port ${m.ExternalPort}`);
  if (!DISTRIBUTIONS.has(m.DistributionType ?? 0)) bad(`unknown distribution type ${m.DistributionType}`);
  const pmFlags = m.Flags ?? 0;
  if ((pmFlags & ~KNOWN_PORT_MAPPING_FLAGS) !== 0) bad(`unknown port mapping flags ${pmFlags}`);
  // (model) internal load balancing and an external VIP contradict each other; upstream never combines them.
  if ((pmFlags & PortMappingFlags.ILB) !== 0 && (pmFlags & PortMappingFlags.VipExternalIP) !== 0)
    bad('ILB and VipExternalIP exclude each other');
  const vips = lb.FrontendVIPs ?? [];
  // (model) a local-routed VIP is the node's own addresses (NodePort): it takes no frontend VIP.
  if ((pmFlags & PortMappingFlags.LocalRoutedVIP) !== 0 && vips.length > 0) bad('LocalRoutedVIP takes no FrontendVIPs');
  for (const vip of vips) {
    // (doc) HCN_E_INVALID_IP for an address that does not parse.
    const f = familyOf(vip);
    if (f === undefined) refuse(op, HResult.HCN_E_INVALID_IP, `invalid frontend VIP ${JSON.stringify(vip)}`);
    if (f !== family) bad(`frontend VIP ${vip} is ${f} but the IPv6 flag says ${family}`);
  }
  if (lb.SourceVIP !== undefined) {
    const f = familyOf(lb.SourceVIP);
    if (f === undefined) refuse(op, HResult.HCN_E_INVALID_IP, `invalid source VIP ${JSON.stringify(lb.SourceVIP)}`);
    if (f !== family) bad(`source VIP ${lb.SourceVIP} is ${f} but the load balancer is ${family}`);
  }
  const endpoints = lb.HostComputeEndpoints ?? [];
  if (endpoints.length === 0) bad('a load balancer needs at least one endpoint');
  if (new Set(endpoints.map((id) => id.toUpperCase())).size !== endpoints.length) bad('duplicate endpoint IDs');
  for (const id of endpoints) {
    const ips = endpointIps(id);
    // (doc) HCN_E_ENDPOINT_NOT_FOUND for a reference to an endpoint HNS does not have.
    if (ips === undefined) refuse(op, HResult.HCN_E_ENDPOINT_NOT_FOUND, `endpoint ${id} not found`);
    if (!ips.some((ip) => familyOf(ip) === family)) bad(`endpoint ${id} has no ${family} address`);
  }
  return family;
}

export function validateEndpoint(ep: HostComputeEndpoint): void {
  const op = 'HcnCreateEndpoint';
  if (ep.SchemaVersion?.Major !== 2) refuse(op, HResult.HCN_E_INVALID_JSON, 'SchemaVersion 2.0 is required');
  const configs = ep.IpConfigurations ?? [];
  if (configs.length === 0) refuse(op, HResult.HCN_E_INVALID_ENDPOINT, 'an endpoint needs an IP configuration');
  for (const c of configs)
    if (familyOf(c.IpAddress) === undefined)
      refuse(op, HResult.HCN_E_INVALID_IP, `invalid IP ${JSON.stringify(c.IpAddress)}`);
  if (ep.MacAddress !== undefined && !MAC_RE.test(ep.MacAddress))
    refuse(op, HResult.HCN_E_INVALID_ENDPOINT, `invalid MAC ${JSON.stringify(ep.MacAddress)}`);
  for (const p of ep.Policies ?? []) {
    if (p.Type !== 'ProviderAddress') refuse(op, HResult.HCN_E_INVALID_POLICY, `unsupported endpoint policy ${p.Type}`);
    const pa = (p.Settings as { ProviderAddress?: unknown } | undefined)?.ProviderAddress;
    if (familyOf(pa) === undefined)
      refuse(op, HResult.HCN_E_INVALID_IP, `invalid provider address ${JSON.stringify(pa)}`);
  }
}
