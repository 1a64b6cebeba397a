/**
 * KubeProxyConfiguration -> the Windows (HNS) backend's options: the `winkernel` section
 * (networkName, sourceVip, enableDSR, rootHnsEndpointName, forwardHealthCheckVip) and the health
 * port of healthzBindAddress (the port forwarded health-check VIPs point at).
 */
import type { WinKernelBackendOptions } from '@kpng/win-kernel';
import type { KubeProxyConfiguration } from '../config/types.js';

export interface KernelspaceMapping {
  readonly options: WinKernelBackendOptions;
  readonly warnings: readonly string[];
}

export function kernelspaceBackendOptions(
  config: KubeProxyConfiguration,
  env: NodeJS.ProcessEnv = process.env,
): KernelspaceMapping {
  const w = config.winkernel;
  const warnings: string[] = [];
  const networkName = w.networkName || env['KUBE_NETWORK'] || '';
  if (networkName === '')
    warnings.push('winkernel.networkName is empty and $KUBE_NETWORK is unset: the HNS network cannot be found');
  const port = Number(/:(\d+)$/.exec(config.healthzBindAddress)?.[1] ?? '10256');
  return {
    options: {
      ...(networkName === '' ? {} : { networkName }),
      ...(w.sourceVip === '' ? {} : { sourceVip: w.sourceVip }),
      enableDSR: w.enableDSR,
      ...(w.rootHnsEndpointName === '' ? {} : { rootHnsEndpointName: w.rootHnsEndpointName }),
      forwardHealthCheckVip: w.forwardHealthCheckVip,
      healthzPort: port,
    },
    warnings,
  };
}
