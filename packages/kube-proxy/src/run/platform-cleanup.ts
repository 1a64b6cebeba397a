/**
 * Upstream's platformCleanup: a proxy starting in one mode removes what the other modes left (the
 * nftables tables when running iptables, the KUBE-* iptables chains when running nftables), so
 * switching modes on a live node leaves no stale DNAT behind. A failure is logged, not fatal: the
 * host may lack the other mode's tools, and the mode being started does not depend on it.
 */
import type { Logger } from '@kpng/core';
import type { KubeProxyConfiguration } from '../config/types.js';
import { MODES, type ModeContext } from './modes.js';

export async function cleanupOtherModes(config: KubeProxyConfiguration, ctx: ModeContext, log: Logger): Promise<void> {
  for (const [mode, backend] of MODES) {
    if (mode === config.mode) continue;
    try {
      const removed = await backend.cleanup(config, ctx);
      log.info('removed the leftovers of another proxy mode', { mode, removed });
    } catch (e) {
      log.warn('could not remove the leftovers of another proxy mode', { mode, error: (e as Error).message });
    }
  }
}
