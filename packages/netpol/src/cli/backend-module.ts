/**
 * The enforcer as every program loads it: `kpng-netpol` (the enforcer alone), `kpng --backend
 * netpol`, and `kpng --backend X --with-netpol` (beside a service backend, one sync loop).
 */
import { defineBackend, type BackendContext, type BackendModule, type FlagValues } from '@kpng/core';
import { besideBackend, NetpolBackend } from '../backend/netpol-backend.js';

export const WITH_NETPOL_FLAG = 'with-netpol';

function create(ctx: BackendContext): NetpolBackend {
  return new NetpolBackend({ registry: ctx.registry, ...(ctx.netns !== undefined ? { netns: ctx.netns } : {}) });
}

export const backend = defineBackend<Record<string, never>>({
  name: 'netpol',
  program: 'kpng-netpol',
  proxyMode: 'netpol',
  summary: 'NetworkPolicy enforcer: one nftables table (inet kpng-netpol) kept in step with the policy view',
  flags: {},
  policy: true,
  parseFlags: () => ({}),
  create: (_options, ctx) => create(ctx),
});

/**
 * `main` with the enforcer beside it (`--with-netpol`): `main`'s name, flags (plus `--with-netpol`)
 * and options; each sync runs both (`besideBackend`). Without `main`, the enforcer alone.
 */
export function withNetpol(main: BackendModule<unknown> | undefined): BackendModule<unknown> {
  const flag = { [WITH_NETPOL_FLAG]: { type: 'boolean', help: 'also enforce NetworkPolicy (@kpng/netpol)' } } as const;
  if (main === undefined) return { ...(backend as BackendModule<unknown>), flags: flag };
  if (main.policy) return main;
  const own = (values: FlagValues): FlagValues =>
    Object.fromEntries(Object.entries(values).filter(([name]) => name !== WITH_NETPOL_FLAG));
  return {
    ...main,
    flags: { ...main.flags, ...flag },
    policy: true,
    parseFlags: (values) => main.parseFlags(own(values)),
    create: async (options, ctx) => besideBackend(await main.create(options, ctx), create(ctx)),
  };
}
