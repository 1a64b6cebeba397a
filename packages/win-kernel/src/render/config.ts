/**
 * The winkernel settings (kube-proxy's `winkernel` config section and Windows flags), resolved.
 */
import { ErrorCodes, ipFamilyOf, KpngError, type IPFamily } from '@kpng/core';

export interface WinKernelConfigInput {
  /** The HNS network the pods are on (`--network-name`; default: `$KUBE_NETWORK`). */
  readonly networkName?: string;
  /** Overlay networks: the node's source VIP endpoint address (`--source-vip`). */
  readonly sourceVip?: string;
  /** Direct server return for ClusterIP load balancers (`--enable-dsr`). */
  readonly enableDSR?: boolean;
  /** The host's HNS endpoint, the target of forwarded health-check VIPs (`--root-hnsendpoint-name`). */
  readonly rootHnsEndpointName?: string;
  /** Forward the LB IPs' health-check port to the host (`--forward-healthcheck-vip`). */
  readonly forwardHealthCheckVip?: boolean;
  /** kube-proxy's healthz port: the health-check port of LB IPs without a healthCheckNodePort. */
  readonly healthzPort?: number;
  /** Families to program; default both. Overlay networks are IPv4 only (as upstream). */
  readonly families?: readonly IPFamily[];
}

export interface WinKernelConfig {
  readonly networkName: string;
  readonly sourceVip: string | undefined;
  readonly enableDSR: boolean;
  readonly rootHnsEndpointName: string;
  readonly forwardHealthCheckVip: boolean;
  readonly healthzPort: number;
  readonly families: readonly IPFamily[];
}

export function resolveConfig(input: WinKernelConfigInput, env: NodeJS.ProcessEnv = process.env): WinKernelConfig {
  const networkName = input.networkName ?? env['KUBE_NETWORK'] ?? '';
  if (networkName === '')
    throw new KpngError(ErrorCodes.InvalidConfig, 'the HNS network name is required: --network-name or $KUBE_NETWORK');
  if (input.sourceVip !== undefined && ipFamilyOf(input.sourceVip) === undefined) {
    throw new KpngError(
      ErrorCodes.InvalidConfig,
      `--source-vip ${JSON.stringify(input.sourceVip)} is not an IP address`,
    );
  }
  const healthzPort = input.healthzPort ?? 10256;
  if (!Number.isInteger(healthzPort) || healthzPort < 1 || healthzPort > 65535)
    throw new KpngError(ErrorCodes.InvalidConfig, `invalid healthz port ${healthzPort}`);
  return {
    networkName,
    sourceVip: input.sourceVip,
    enableDSR: input.enableDSR ?? false,
    rootHnsEndpointName: input.rootHnsEndpointName ?? 'cbr0',
    forwardHealthCheckVip: input.forwardHealthCheckVip ?? false,
    healthzPort,
    families: input.families ?? ['IPv4', 'IPv6'],
  };
}
