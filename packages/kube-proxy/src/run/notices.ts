/**
 * What the operator should be told about the effective configuration: feature gates (kpng uses
 * none of them), and settings kpng accepts but does not act on.
 */
import type { KubeProxyConfiguration } from '../config/types.js';

export function featureGateWarnings(gates: Readonly<Record<string, boolean>>): string[] {
  return Object.entries(gates).map(
    ([name, value]) => `feature gate ${name}=${value} is not used by kpng's kube-proxy and is ignored`,
  );
}

export function unsupportedSettingWarnings(c: KubeProxyConfiguration): string[] {
  const warnings: string[] = [];
  if (c.enableProfiling) warnings.push('enableProfiling: kpng serves no /debug/pprof handlers; ignored');
  if (c.showHiddenMetricsForVersion !== '')
    warnings.push('showHiddenMetricsForVersion: kpng has no hidden metrics; ignored');
  if (c.bindAddress !== '0.0.0.0' && c.bindAddress !== '::') {
    warnings.push("bindAddress: kpng takes the node's primary IPs from its Node object; ignored");
  }
  if (c.windowsRunAsService) {
    warnings.push(
      'windowsRunAsService: kpng does not report to the Windows Service Control Manager; run it under a service wrapper. Ignored',
    );
  }
  if (c.mode === 'nftables' && c.iptables.masqueradeBit !== 14) {
    warnings.push('iptables.masqueradeBit has no effect in nftables mode (nftables.masqueradeBit does)');
  }
  return warnings;
}
