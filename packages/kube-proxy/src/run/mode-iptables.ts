/** iptables mode: `@kpng/iptables`, loaded only when this mode runs or cleans up. */
import { createLogger } from '@kpng/core';
import { explainIptables, localhostNodePorts, resolveConfig, type backend as iptablesModule } from '@kpng/iptables';
import { iptablesBackendOptions } from './iptables-options.js';
import { removeIptablesChains } from './leftovers.js';
import type { ProxyMode } from './modes.js';

export const mode: ProxyMode = {
  backendOptions(config, ctx) {
    const { options, warnings } = iptablesBackendOptions(config, ctx.tcpBeLiberal ?? false);
    const moduleOptions: Parameters<typeof iptablesModule.create>[0] = {
      ...resolveConfig(options),
      ...(ctx.writeTimeoutMs !== undefined ? { writeTimeoutMs: ctx.writeTimeoutMs } : {}),
    };
    return { options: moduleOptions, warnings };
  },
  sysctls(config) {
    // Upstream's NewProxier: route_localnet for NodePorts on 127.0.0.1 (fatal if refused).
    const resolved = resolveConfig(iptablesBackendOptions(config, false).options);
    return localhostNodePorts({ config: resolved, family: 'IPv4' })
      ? [{ name: 'net/ipv4/conf/all/route_localnet', value: 1, fatal: true }]
      : [];
  },
  async cleanup(_config, ctx) {
    if ((ctx.platform ?? process.platform) === 'win32') return []; // no iptables on Windows
    // kpng's chains are upstream's iptables mode's; ipvs mode's go too (KUBE-FIREWALL, kubelet's,
    // stays). Both flavours: a node may hold legacy and nft rules at once, both in the data path.
    const ka = {
      ...(ctx.netns !== undefined ? { netns: ctx.netns } : {}),
      log: createLogger({ component: 'kube-proxy' }),
    };
    const all = { IPv4: 'all', IPv6: 'all' } as const;
    return [...(await removeIptablesChains('legacy', all, ka)), ...(await removeIptablesChains('nft', all, ka))];
  },
  // The flavour the node's `iptables-save` is (as the running mode detects it).
  explain: (_config, service, ctx) => explainIptables({ families: ['IPv4', 'IPv6'], flavour: 'auto' }, service, ctx),
};
