/**
 * Upstream's privileged set-up, per mode: what `--init-only` does alone (e.g. in a privileged init
 * container, the proxy itself then running with fewer rights) and what every start does first.
 * - every Linux mode: the conntrack sysctls (cmd/kube-proxy/app/server_linux.go platformSetup);
 * - iptables: `net.ipv4.conf.all.route_localnet=1` when localhost NodePorts are on (its NewProxier);
 * - ipvs: IPVS loaded, its sysctls and timeouts (its NewProxier; `@kpng/ipvs`'s prepareNode, which
 *   writes IPv6 forwarding only on a node with IPv6);
 * - nftables: nothing more (its NewProxier writes no sysctl).
 * Each sysctl is written alone and each failure is reported by name; a failure stops the start
 * exactly where upstream's does (every one of these but IPv6 forwarding and the IPVS timeouts).
 */
import type { Logger } from '@kpng/core';
import type { KubeProxyConfiguration } from '../config/types.js';
import { conntrackSysctls, type SysctlSetting } from './conntrack.js';
import { modeEntry, type ModeContext, type ProxyMode } from './modes.js';
import { applySysctls, type SysctlAccess } from './sysctl.js';

/** The sysctls kube-proxy writes itself in `mode` (ipvs mode's are its backend's: see its `prepare`). */
export function setupSysctls(
  config: KubeProxyConfiguration,
  cpuCores: number,
  mode: Pick<ProxyMode, 'sysctls'>,
): SysctlSetting[] {
  return [...conntrackSysctls(config.conntrack, cpuCores), ...(mode.sysctls?.(config) ?? [])];
}

export interface SetupDeps {
  readonly cpuCores: number;
  readonly access: SysctlAccess;
  readonly log: Logger;
  readonly ctx: ModeContext;
}

/** Runs the set-up; returns what failed fatally (empty: the proxy may start), each by name. */
export async function privilegedSetup(config: KubeProxyConfiguration, deps: SetupDeps): Promise<string[]> {
  if ((deps.ctx.platform ?? process.platform) === 'win32') return []; // no Linux sysctls on Windows
  // A mode without set-up steps of its own (nftables, ebpf) loads no backend package here.
  const entry = modeEntry(config.mode);
  const mode: Pick<ProxyMode, 'sysctls' | 'prepare'> = entry.setup ? await entry.load() : {};
  const { failed } = await applySysctls(setupSysctls(config, deps.cpuCores, mode), deps.access, deps.log);
  const fatal = failed.filter((f) => f.fatal).map((f) => `cannot set sysctl ${f.name} (${f.error})`);
  if (mode.prepare !== undefined) {
    try {
      await mode.prepare(config, deps.ctx);
    } catch (e) {
      fatal.push((e as Error).message.split('\n')[0] ?? '');
    }
  }
  return fatal;
}
