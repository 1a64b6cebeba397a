/** nftables mode: `@kpng/nft`, loaded only when this mode runs or its tables are removed. */
import { explainNft, NftBackend, resolveConfig, type backend as nftModule } from '@kpng/nft';
import type { KubeProxyConfiguration } from '../config/types.js';
import type { ModeContext, ProxyMode } from './modes.js';
import { nftBackendOptions, nftTablesOf, tableName } from './nft-options.js';

/** What `@kpng/nft`'s backend module creates from (its flags' configuration). */
export type NftModuleOptions = Parameters<typeof nftModule.create>[0];

/** The configuration as `@kpng/nft`'s module options (ebpf mode's packet path too). */
export function nftModuleOptions(
  config: KubeProxyConfiguration,
  ctx: ModeContext,
): { options: NftModuleOptions; warnings: readonly string[] } {
  const { options, warnings } = nftBackendOptions(config);
  return {
    options: {
      ...resolveConfig(options),
      ...(ctx.writeTimeoutMs !== undefined ? { writeTimeoutMs: ctx.writeTimeoutMs } : {}),
    },
    warnings,
  };
}

export const mode: ProxyMode = {
  backendOptions: nftModuleOptions,
  async cleanup(config, ctx) {
    if ((ctx.platform ?? process.platform) === 'win32') return []; // no nftables on Windows
    return removeNftTables(nftTablesOf(config), ctx);
  },
  explain: (config, service, ctx) =>
    explainNft({ families: ['IPv4', 'IPv6'], tableName: tableName(config) }, service, ctx),
};

/** Removes `ip <name>` and `ip6 <name>` (where present) of each name, and nothing else. */
export async function removeNftTables(names: readonly string[], ctx: ModeContext): Promise<string[]> {
  for (const name of names) {
    await new NftBackend({
      tableName: name,
      conntrack: false,
      ...(ctx.netns !== undefined ? { netns: ctx.netns } : {}),
    }).cleanup();
  }
  return names.flatMap((name) => [`ip ${name}`, `ip6 ${name}`]);
}
