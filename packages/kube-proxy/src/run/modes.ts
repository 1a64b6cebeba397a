/**
 * The proxy modes this build can run, each backed by a backend package. Adding a mode is one entry
 * here (and its package in package.json).
 */
import type { Backend } from '@kpng/core';
import { IptablesBackend } from '@kpng/iptables';
import { NftBackend } from '@kpng/nft';
import type { Registry } from 'prom-client';
import type { KubeProxyConfiguration } from '../config/types.js';
import { iptablesBackendOptions } from './iptables-options.js';
import { IpvsBackend } from '@kpng/ipvs';
import { ipvsBackendConfig } from './ipvs-options.js';
import { nftBackendOptions, tableName, UPSTREAM_TABLE } from './nft-options.js';

export interface ModeContext {
  /** Program the kernel of this network namespace (KPNG_NETNS; tests and labs). */
  readonly netns?: string;
  readonly registry?: Registry;
}

export interface ProxyModeBackend {
  /** The backend for a running proxy, plus warnings about the configuration's mapping. */
  create(config: KubeProxyConfiguration, ctx: ModeContext): { backend: Backend; warnings: readonly string[] };
  /** `--cleanup`: remove what this mode (kpng's and upstream's) programmed; returns what was removed. */
  cleanup(config: KubeProxyConfiguration, ctx: ModeContext): Promise<string[]>;
}

const nftables: ProxyModeBackend = {
  create(config, ctx) {
    const { options, warnings } = nftBackendOptions(config);
    const backend = new NftBackend({
      ...options,
      ...(ctx.netns !== undefined ? { netns: ctx.netns } : {}),
      ...(ctx.registry !== undefined ? { metrics: ctx.registry } : {}),
    });
    return { backend, warnings };
  },
  async cleanup(config, ctx) {
    const tables = [...new Set([tableName(config), UPSTREAM_TABLE])];
    for (const name of tables) {
      // cleanup() removes `ip <name>` and `ip6 <name>` (if present) and nothing else.
      await new NftBackend({ tableName: name, conntrack: false, ...(ctx.netns !== undefined ? { netns: ctx.netns } : {}) }).cleanup();
    }
    return tables.flatMap((name) => [`ip ${name}`, `ip6 ${name}`]);
  },
};

const iptables: ProxyModeBackend = {
  create(config, ctx) {
    const { options, warnings } = iptablesBackendOptions(config);
    const backend = new IptablesBackend({
      ...options,
      ...(ctx.netns !== undefined ? { netns: ctx.netns } : {}),
      ...(ctx.registry !== undefined ? { metrics: ctx.registry } : {}),
    });
    return { backend, warnings };
  },
  async cleanup(_config, ctx) {
    // kpng's chains are upstream's: one cleanup removes both (KUBE-FIREWALL, kubelet's too, stays).
    await new IptablesBackend({ conntrack: false, ...(ctx.netns !== undefined ? { netns: ctx.netns } : {}) }).cleanup();
    return ['iptables KUBE-* chains', 'ip6tables KUBE-* chains'];
  },
};

const ipvs: ProxyModeBackend = {
  create(config, ctx) {
    const { config: ipvsConfig, warnings } = ipvsBackendConfig(config);
    return { backend: new IpvsBackend({ config: ipvsConfig, ...(ctx.netns !== undefined ? { netns: ctx.netns } : {}) }), warnings };
  },
  async cleanup(config, ctx) {
    // Virtual servers (outside ipvs.excludeCIDRs), kube-ipvs0, and the `ip`/`ip6 kpng-ipvs` tables.
    const backend = new IpvsBackend({ config: ipvsBackendConfig(config).config, ...(ctx.netns !== undefined ? { netns: ctx.netns } : {}) });
    try {
      await backend.cleanup();
    } finally {
      await backend.close();
    }
    return ['ipvs virtual servers', 'kube-ipvs0', 'ip kpng-ipvs', 'ip6 kpng-ipvs'];
  },
};

export const MODES: ReadonlyMap<string, ProxyModeBackend> = new Map([
  ['iptables', iptables],
  ['nftables', nftables],
  ['ipvs', ipvs],
]);

export const AVAILABLE_MODES: readonly string[] = [...MODES.keys()];

/** What a blank mode means in this build: iptables, as upstream on Linux. */
export const DEFAULT_MODE = 'iptables';
