/**
 * The cases that check the fake HNS against the real one. Each case creates one load balancer (after
 * an optional first one) and names what HNS answers: 0 (accepted) or an HRESULT. The unit tests run
 * them against the fake (they must all hold there); `scripts/verify-windows.mjs` runs the very same
 * table against computenetwork.dll on a Windows node and reports every disagreement.
 */
import { HResult } from '../hcn/errors.js';
import {
  Distribution,
  LoadBalancerFlags,
  PortMappingFlags,
  SCHEMA_V2,
  type HostComputeLoadBalancer,
} from '../hcn/schema.js';

export interface VerifyContext {
  /** A local (pod or host) endpoint of the network, IPv4. */
  readonly endpointId: string;
  /** Two unused IPv4 frontend addresses. */
  readonly vips: readonly [string, string];
  /** An unused port (the cases use it and the next one). */
  readonly port: number;
}

export interface VerifyCase {
  readonly name: string;
  /** `doc`: HCN's documented behaviour; `model`: this project's reading, to be confirmed on Windows; `shape`: what the backend sends. */
  readonly basis: 'doc' | 'model' | 'shape';
  readonly first?: (ctx: VerifyContext) => HostComputeLoadBalancer;
  readonly doc: (ctx: VerifyContext) => HostComputeLoadBalancer | string;
  /** 0: accepted. */
  readonly expected: number;
}

const lb = (
  ctx: VerifyContext,
  over: Partial<HostComputeLoadBalancer> = {},
  mapping: Record<string, number> = {},
): HostComputeLoadBalancer => ({
  HostComputeEndpoints: [ctx.endpointId],
  FrontendVIPs: [ctx.vips[0]],
  PortMappings: [{ Protocol: 6, InternalPort: 8080, ExternalPort: ctx.port, ...mapping }],
  SchemaVersion: SCHEMA_V2,
  ...over,
});

export const VERIFY_CASES: readonly VerifyCase[] = [
  { name: 'ClusterIP load balancer', basis: 'shape', doc: (c) => lb(c), expected: 0 },
  {
    name: 'ClusterIP with DSR (--enable-dsr)',
    basis: 'shape',
    doc: (c) => lb(c, { Flags: LoadBalancerFlags.DSR }),
    expected: 0,
  },
  {
    name: 'ClientIP affinity (DistributionType SourceIP)',
    basis: 'shape',
    doc: (c) => lb(c, {}, { DistributionType: Distribution.SourceIP }),
    expected: 0,
  },
  {
    name: 'NodePort (no VIP, LocalRoutedVIP | VipExternalIP)',
    basis: 'shape',
    doc: (c) =>
      lb(c, { FrontendVIPs: [] }, { Flags: PortMappingFlags.LocalRoutedVIP | PortMappingFlags.VipExternalIP }),
    expected: 0,
  },
  {
    name: 'NodePort with externalTrafficPolicy Local (DSR)',
    basis: 'shape',
    doc: (c) =>
      lb(
        c,
        { FrontendVIPs: [], Flags: LoadBalancerFlags.DSR },
        { Flags: PortMappingFlags.LocalRoutedVIP | PortMappingFlags.VipExternalIP },
      ),
    expected: 0,
  },
  {
    name: 'external or LB IP (VipExternalIP)',
    basis: 'shape',
    doc: (c) => lb(c, {}, { Flags: PortMappingFlags.VipExternalIP }),
    expected: 0,
  },
  {
    name: 'LB IP with preserve-destination (DSR, UseMux, PreserveDIP)',
    basis: 'shape',
    doc: (c) =>
      lb(
        c,
        { Flags: LoadBalancerFlags.DSR },
        { Flags: PortMappingFlags.VipExternalIP | PortMappingFlags.UseMux | PortMappingFlags.PreserveDIP },
      ),
    expected: 0,
  },
  {
    name: 'forwarded health check VIP (UseMux, PreserveDIP, no DSR)',
    basis: 'shape',
    doc: (c) => lb(c, {}, { Flags: PortMappingFlags.UseMux | PortMappingFlags.PreserveDIP }),
    expected: 0,
  },
  {
    name: 'same VIP, other protocol',
    basis: 'model',
    first: (c) => lb(c),
    doc: (c) => lb(c, {}, { Protocol: 17 }),
    expected: 0,
  },
  {
    name: 'duplicate VIP, protocol and port',
    basis: 'doc',
    first: (c) => lb(c),
    doc: (c) => lb(c, {}, { InternalPort: 9090 }),
    expected: HResult.HCN_E_PORT_ALREADY_EXISTS,
  },
  {
    name: 'duplicate NodePort',
    basis: 'model',
    first: (c) => lb(c, { FrontendVIPs: [] }, { Flags: 18 }),
    doc: (c) => lb(c, { FrontendVIPs: [] }, { Flags: 18 }),
    expected: HResult.HCN_E_PORT_ALREADY_EXISTS,
  },
  {
    name: 'unknown endpoint ID',
    basis: 'doc',
    doc: (c) => lb(c, { HostComputeEndpoints: ['E0000000-0000-4000-8000-00000000dead'] }),
    expected: HResult.HCN_E_ENDPOINT_NOT_FOUND,
  },
  {
    name: 'internal port 0',
    basis: 'doc',
    doc: (c) => lb(c, {}, { InternalPort: 0 }),
    expected: HResult.HCN_E_INVALID_INTERNAL_PORT,
  },
  { name: 'invalid JSON', basis: 'doc', doc: () => '{"PortMappings":', expected: HResult.HCN_E_INVALID_JSON },
  {
    name: 'unparsable VIP',
    basis: 'doc',
    doc: (c) => lb(c, { FrontendVIPs: ['203.0.113.300'] }),
    expected: HResult.HCN_E_INVALID_IP,
  },
  {
    name: 'IPv6 VIP without the IPv6 flag',
    basis: 'model',
    doc: (c) => lb(c, { FrontendVIPs: ['2001:db8:ff::10'] }),
    expected: HResult.HCN_E_INVALID_POLICY,
  },
  {
    name: 'LocalRoutedVIP with a VIP',
    basis: 'model',
    doc: (c) => lb(c, {}, { Flags: PortMappingFlags.LocalRoutedVIP }),
    expected: HResult.HCN_E_INVALID_POLICY,
  },
  {
    name: 'ILB with VipExternalIP',
    basis: 'model',
    doc: (c) => lb(c, {}, { Flags: PortMappingFlags.ILB | PortMappingFlags.VipExternalIP }),
    expected: HResult.HCN_E_INVALID_POLICY,
  },
  {
    name: 'unknown load balancer flag bits',
    basis: 'model',
    doc: (c) => lb(c, { Flags: 4 }),
    expected: HResult.HCN_E_INVALID_POLICY,
  },
  {
    name: 'no endpoints',
    basis: 'model',
    doc: (c) => lb(c, { HostComputeEndpoints: [] }),
    expected: HResult.HCN_E_INVALID_POLICY,
  },
  {
    name: 'two port mappings',
    basis: 'model',
    doc: (c) =>
      lb(c, {
        PortMappings: [
          { Protocol: 6, InternalPort: 1, ExternalPort: c.port },
          { Protocol: 6, InternalPort: 2, ExternalPort: c.port + 1 },
        ],
      }),
    expected: HResult.HCN_E_INVALID_POLICY,
  },
];
