/**
 * The proxy modes this build can run, each backed by a backend package. Adding a mode is one entry
 * here (and its package in package.json).
 */
import { createLogger, type Backend } from '@kpng/core';
import { IptablesBackend } from '@kpng/iptables';
import { NftBackend } from '@kpng/nft';
import { WinKernelBackend } from '@kpng/win-kernel';
import type { Registry } from 'prom-client';
import type { KubeProxyConfiguration } from '../config/types.js';
import { iptablesBackendOptions } from './iptables-options.js';
import { IpvsBackend } from '@kpng/ipvs';
import { ipvsBackendConfig } from './ipvs-options.js';
import { kernelspaceBackendOptions } from './kernelspace-options.js';
import { nftBackendOptions, nftTablesOf } from './nft-options.js';
import { removeIptablesChains } from './leftovers.js';

export interface ModeContext {
  /** Program the kernel of this network namespace (KPNG_NETNS; tests and labs). */
  readonly netns?: string;
  /** Kill a kernel command still running after this many ms (KPNG_WRITE_TIMEOUT; default: the backend's). */
  readonly writeTimeoutMs?: number;
  readonly registry?: Registry;
  /** The OS this runs on (default `process.platform`): each mode cleans up only where it can have programmed anything. */
  readonly platform?: NodeJS.Platform;
  /** The kernel's `nf_conntrack_tcp_be_liberal` is set (read at start; iptables mode's INVALID drop). */
  readonly tcpBeLiberal?: boolean;
}

export interface ProxyModeBackend {
  /** The OS the mode exists on: Linux modes are unavailable on Windows and kernelspace is Windows-only, as upstream validates. */
  readonly platform: 'linux' | 'win32';
  /** The backend for a running proxy, plus warnings about the configuration's mapping. */
  create(config: KubeProxyConfiguration, ctx: ModeContext): { backend: Backend; warnings: readonly string[] };
  /** `--cleanup`: remove what this mode (kpng's and upstream's) programmed; returns what was removed. */
  cleanup(config: KubeProxyConfiguration, ctx: ModeContext): Promise<string[]>;
}

const nftables: ProxyModeBackend = {
  platform: 'linux',
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

const iptables: ProxyModeBackend = {
  platform: 'linux',
  create(config, ctx) {
    const { options, warnings } = iptablesBackendOptions(config, ctx.tcpBeLiberal ?? false);
    const backend = new IptablesBackend({
      ...options,
      ...(ctx.netns !== undefined ? { netns: ctx.netns } : {}),
      ...(ctx.writeTimeoutMs !== undefined ? { writeTimeoutMs: ctx.writeTimeoutMs } : {}),
      ...(ctx.registry !== undefined ? { metrics: ctx.registry } : {}),
    });
    return { backend, warnings };
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
};

const ipvs: ProxyModeBackend = {
  platform: 'linux',
  create(config, ctx) {
    const { config: ipvsConfig, warnings } = ipvsBackendConfig(config);
    const backend = new IpvsBackend({
      config: ipvsConfig,
      ...(ctx.netns !== undefined ? { netns: ctx.netns } : {}),
      ...(ctx.writeTimeoutMs !== undefined ? { writeTimeoutMs: ctx.writeTimeoutMs } : {}),
      ...(ctx.registry !== undefined ? { metrics: ctx.registry } : {}),
    });
    return { backend, warnings };
  },
  async cleanup(config, ctx) {
    if ((ctx.platform ?? process.platform) === 'win32') return []; // no IPVS on Windows
    // Virtual servers (outside ipvs.excludeCIDRs), kube-ipvs0, and the `ip`/`ip6 kpng-ipvs` tables.
    const backend = new IpvsBackend({
      config: ipvsBackendConfig(config).config,
      ...(ctx.netns !== undefined ? { netns: ctx.netns } : {}),
    });
    try {
      await backend.cleanup();
    } finally {
      await backend.close();
    }
    return ['ipvs virtual servers', 'kube-ipvs0', 'ip kpng-ipvs', 'ip6 kpng-ipvs'];
  },
};

/** Windows: HNS load balancers through computenetwork.dll (`@kpng/win-kernel`). */
const kernelspace: ProxyModeBackend = {
  platform: 'win32',
  create(config, ctx) {
    const { options, warnings } = kernelspaceBackendOptions(config);
    const backend = new WinKernelBackend({
      ...options,
      ...(ctx.registry !== undefined ? { metrics: ctx.registry } : {}),
    });
    return { backend, warnings };
  },
  async cleanup(config, ctx) {
    if ((ctx.platform ?? process.platform) !== 'win32') return []; // HNS exists on Windows only
    // As upstream's CleanupLeftovers: every HNS load balancer, plus the remote endpoints kpng created.
    const { options } = kernelspaceBackendOptions(config);
    await new WinKernelBackend(options).cleanup();
    return ['HNS load balancers', `remote endpoints of HNS network ${options.networkName ?? ''}`];
  },
};

export const MODES: ReadonlyMap<string, ProxyModeBackend> = new Map([
  ['iptables', iptables],
  ['nftables', nftables],
  ['ipvs', ipvs],
  ['kernelspace', kernelspace],
]);

/** The modes this build runs on `platform`. */
export function availableModes(platform: NodeJS.Platform = process.platform): string[] {
  const os = platform === 'win32' ? 'win32' : 'linux';
  return [...MODES].filter(([, mode]) => mode.platform === os).map(([name]) => name);
}

export const AVAILABLE_MODES: readonly string[] = availableModes();

/** What a blank mode means: iptables on Linux, kernelspace on Windows, as upstream. */
export function defaultMode(platform: NodeJS.Platform = process.platform): string {
  return platform === 'win32' ? 'kernelspace' : 'iptables';
}

export const DEFAULT_MODE = defaultMode();
