/**
 * The proxy modes this build can run, each backed by a backend package. Adding a mode is one entry
 * here (and its package in package.json).
 */
import type { Backend } from '@kpng/core';
import { NftBackend } from '@kpng/nft';
import type { Registry } from 'prom-client';
import type { KubeProxyConfiguration } from '../config/types.js';
import { KPNG_TABLE, nftBackendOptions, tableName, UPSTREAM_TABLE } from './nft-options.js';

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
    const tables = [...new Set([tableName(config), UPSTREAM_TABLE, KPNG_TABLE])];
    for (const name of tables) {
      // cleanup() removes `ip <name>` and `ip6 <name>` (if present) and nothing else.
      await new NftBackend({ tableName: name, conntrack: false, ...(ctx.netns !== undefined ? { netns: ctx.netns } : {}) }).cleanup();
    }
    return tables.flatMap((name) => [`ip ${name}`, `ip6 ${name}`]);
  },
};

export const MODES: ReadonlyMap<string, ProxyModeBackend> = new Map([['nftables', nftables]]);

export const AVAILABLE_MODES: readonly string[] = [...MODES.keys()];

/** What a blank mode means in this build. */
export const DEFAULT_MODE = 'nftables';
