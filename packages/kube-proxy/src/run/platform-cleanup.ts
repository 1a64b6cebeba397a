/**
 * Upstream's platformCleanup, made safe for a live swap: a proxy starting in one mode removes what
 * the other modes (upstream's and kpng's) left, so switching modes or implementations on a live
 * node leaves no stale rule acting on traffic. Unlike upstream (which cleans before its first
 * sync), the leftovers go right after this proxy's first successful sync: until then the old
 * rules keep serving the Services, so no new connection fails during the swap (both sets of
 * rules translate to the same endpoints meanwhile, and the first NAT rule a connection meets
 * decides it). What a mode takes over in place is not removed (see `plan` in leftovers.ts).
 * A failure is logged, not fatal: the host may lack the other mode's tools.
 */
import type { Backend, IPFamily, Logger, SyncOutcome, SyncRequest } from '@kpng/core';
import { processExecer } from '@kpng/kit';
import type { KubeProxyConfiguration } from '../config/types.js';
import { plan, removeIpsets, removeIptablesChains, type Flavour, type LeftoverPlan } from './leftovers.js';
import { loadMode, removeNftTables, type ModeContext } from './modes.js';
import { nftTablesOf, tableName } from './nft-options.js';

export interface Removal {
  readonly removed: string[];
  /** What could not be removed, with why. */
  readonly failed: string[];
}

/** Removes what `p` lists, in dependency order: chains (they match on ipsets), ipsets, IPVS, tables. */
export async function removeLeftovers(
  p: LeftoverPlan,
  config: KubeProxyConfiguration,
  ctx: ModeContext,
  log: Logger,
): Promise<Removal> {
  const removed: string[] = [];
  const failed: string[] = [];
  if ((ctx.platform ?? process.platform) === 'win32') return { removed, failed }; // no Linux mode's objects
  const ka = { ...(ctx.netns !== undefined ? { netns: ctx.netns } : {}), log };
  const step = async (what: string, run: () => Promise<string[]>) => {
    try {
      removed.push(...(await run()));
    } catch (e) {
      failed.push(`${what}: ${(e as Error).message.split('\n')[0] ?? ''}`);
    }
  };
  for (const [flavour, scopes] of p.iptables)
    await step(`iptables-${flavour} chains`, () => removeIptablesChains(flavour, scopes, ka));
  if (p.ipsets) await step('ipsets', () => removeIpsets(ka));
  if (p.ipvs) await step('IPVS', async () => (await loadMode('ipvs')).cleanup(config, ctx));
  if (p.nftTables.length > 0) await step('nftables tables', () => removeNftTables(p.nftTables, ctx));
  return { removed, failed };
}

/** The flavour the `iptables` on PATH is (iptables mode programs with it). */
async function iptablesFlavour(ctx: ModeContext): Promise<Flavour | undefined> {
  const { IptablesClient } = await import('@kpng/iptables');
  const client = new IptablesClient({
    execer: processExecer,
    flavour: 'auto',
    ...(ctx.netns !== undefined ? { netns: ctx.netns } : {}),
  });
  return (await client.detectFlavour().catch(() => undefined))?.flavour;
}

/** Removes the other modes' leftovers for a proxy running `config.mode`; logs what it did. */
export async function cleanupOtherModes(
  config: KubeProxyConfiguration,
  ctx: ModeContext,
  log: Logger,
  families: readonly IPFamily[],
): Promise<void> {
  if ((ctx.platform ?? process.platform) === 'win32') return; // no Linux mode's objects on Windows
  const flavour = config.mode === 'iptables' ? await iptablesFlavour(ctx) : undefined;
  const p = plan({
    mode: config.mode,
    nftTable: tableName(config),
    nftTables: nftTablesOf(config),
    ...(flavour !== undefined ? { flavour } : {}),
    families,
  });
  const { removed, failed } = await removeLeftovers(p, config, ctx, log);
  log.info('removed the leftovers of other proxy modes', { mode: config.mode, removed });
  for (const failure of failed) log.warn('could not remove the leftovers of another proxy mode', { failure });
}

/**
 * The backend, removing the other modes' leftovers once, right after its first successful sync
 * (inside that sync: nothing else touches the kernel meanwhile).
 */
export function cleaningAfterFirstSync(backend: Backend, cleanup: () => Promise<void>): Backend {
  let pending = true;
  const wrapped: Backend = {
    name: backend.name,
    families: backend.families,
    // The sync stage resolves nodePortAddresses for the backend only when it declares them.
    ...(backend.nodePorts === undefined ? {} : { nodePorts: backend.nodePorts }),
    async sync(req: SyncRequest): Promise<void | SyncOutcome> {
      const outcome = await backend.sync(req);
      if (pending) {
        pending = false;
        await cleanup();
      }
      return outcome;
    },
    cleanup: () => backend.cleanup(),
  };
  if (backend.setup) wrapped.setup = () => backend.setup!();
  if (backend.check) wrapped.check = () => backend.check!();
  if (backend.close) wrapped.close = () => backend.close!();
  return wrapped;
}
