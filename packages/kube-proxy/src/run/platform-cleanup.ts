/**
 * Upstream's platformCleanup: a proxy starting in one mode removes what the other modes left, so
 * switching modes on a live node leaves no stale DNAT behind. As upstream: the iptables-based
 * modes (iptables, ipvs) remove the nftables tables; nftables mode removes the KUBE-* iptables
 * chains and the IPVS state. (Each mode's cleanup does nothing on an OS it does not exist on.)
 * A failure is logged, not fatal: the host may lack the other mode's tools.
 */
import type { Logger } from '@kpng/core';
import type { KubeProxyConfiguration } from '../config/types.js';
import { MODES, type ModeContext } from './modes.js';

const IPTABLES_BASED = new Set(['iptables', 'ipvs']);

/** The modes whose leftovers starting `mode` removes. */
export function leftoversOf(mode: string): string[] {
  if (IPTABLES_BASED.has(mode)) return ['nftables'];
  if (mode === 'nftables') return ['iptables', 'ipvs'];
  return [];
}

export async function cleanupOtherModes(config: KubeProxyConfiguration, ctx: ModeContext, log: Logger): Promise<void> {
  for (const mode of leftoversOf(config.mode)) {
    const backend = MODES.get(mode);
    if (backend === undefined) continue;
    try {
      const removed = await backend.cleanup(config, ctx);
      log.info('removed the leftovers of another proxy mode', { mode, removed });
    } catch (e) {
      log.warn('could not remove the leftovers of another proxy mode', { mode, error: (e as Error).message });
    }
  }
}
