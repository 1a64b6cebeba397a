/** nftables mode: `@kpng/nft`, loaded only when this mode runs or its tables are removed. */
import { explainNft, NftBackend } from '@kpng/nft';
import type { ModeContext, ProxyMode } from './modes.js';
import { nftBackendOptions, nftTablesOf, tableName } from './nft-options.js';

export const mode: ProxyMode = {
  create(config, ctx) {
    const { options, warnings } = nftBackendOptions(config);
    const backend = new NftBackend({
      ...options,
      ...(ctx.netns !== undefined ? { netns: ctx.netns } : {}),
      ...(ctx.writeTimeoutMs !== undefined ? { writeTimeoutMs: ctx.writeTimeoutMs } : {}),
      ...(ctx.registry !== undefined ? { metrics: ctx.registry } : {}),
    });
    return { backend, warnings };
  },
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
