/**
 * The proxy modes this build can run, each backed by a backend package's `BackendModule` (the one
 * shape `kpng --backend` loads too) that is imported only when its mode is used, after the flags
 * and configuration are read: `createModeBackend` (mode-backend.ts) creates it; `loadMode` loads
 * the mode's kube-proxy side (the configuration mapped onto the module's options, `--cleanup`,
 * set-up, explain). `--version`, `--help` and a proxy in one mode load no other mode's backend.
 * Adding a mode is one entry here, its `mode-<name>.ts`, and its package in package.json.
 */
import type { ExplainContext, ExplainReport, ServiceRef } from '@kpng/core';
import type { KubeProxyConfiguration } from '../config/types.js';
import type { SysctlSetting } from './conntrack.js';

export interface ModeContext {
  /** Program the kernel of this network namespace (KPNG_NETNS; tests and labs). */
  readonly netns?: string;
  /** Kill a kernel command still running after this many ms (KPNG_WRITE_TIMEOUT; default: the backend's). */
  readonly writeTimeoutMs?: number;
  /** The OS this runs on (default `process.platform`): each mode cleans up only where it can have programmed anything. */
  readonly platform?: NodeJS.Platform;
  /** The kernel's `nf_conntrack_tcp_be_liberal` is set (read at start; iptables mode's INVALID drop). */
  readonly tcpBeLiberal?: boolean;
}

/** The options a mode's `BackendModule.create` takes, and what the operator should know about the mapping. */
export interface BackendOptions {
  /** The module's own options (what its `parseFlags` returns for its program's flags). */
  readonly options: unknown;
  readonly warnings: readonly string[];
}

/** What a mode's module (`mode-<name>.ts`) exports as `mode`. */
export interface ProxyMode {
  /** The configuration as the options of its backend module's `create`; throws what refuses the mode here. */
  backendOptions(config: KubeProxyConfiguration, ctx: ModeContext): BackendOptions;
  /** `--cleanup`: remove what this mode (kpng's and upstream's) programmed; returns what was removed. */
  cleanup(config: KubeProxyConfiguration, ctx: ModeContext): Promise<string[]>;
  /** Sysctls kube-proxy writes for this mode beside conntrack's, before its backend exists (privileged-setup.ts). */
  sysctls?(config: KubeProxyConfiguration): SysctlSetting[];
  /** The mode's own privileged set-up beyond those (`--init-only` stops after it); throws what must stop the start. */
  prepare?(config: KubeProxyConfiguration, ctx: ModeContext): Promise<void>;
  /** `kube-proxy explain NAMESPACE/NAME`: what this mode programmed for one Service (modes that can). */
  explain?(config: KubeProxyConfiguration, service: ServiceRef, ctx: ExplainContext): Promise<readonly ExplainReport[]>;
}

export interface ModeEntry {
  /** The OS the mode exists on: Linux modes are unavailable on Windows and kernelspace is Windows-only, as upstream validates. */
  readonly platform: 'linux' | 'win32';
  /** Its backend's `BackendModule` by name, as `kpng --backend` takes it (`nft` is `@kpng/nft`'s `backend`). */
  readonly backend: string;
  /**
   * Its kube-proxy side has privileged set-up steps (`sysctls` or `prepare`): without them
   * `--init-only` and the start's set-up load no backend package for this mode.
   */
  readonly setup: boolean;
  /** Imports the mode's kube-proxy side, `mode-<name>.ts` (once: the module cache keeps it). */
  load(): Promise<ProxyMode>;
  /**
   * Imports the backend package (`@kpng/<backend>`), a literal import so that a bundler includes it
   * (the VM suites' bundled compat binary: with a variable specifier it loaded a second, unbundled
   * core and backend from node_modules, minutes under TCG).
   */
  importBackend(): Promise<unknown>;
}

export const MODES: ReadonlyMap<string, ModeEntry> = new Map<string, ModeEntry>([
  [
    'iptables',
    {
      platform: 'linux',
      backend: 'iptables',
      setup: true,
      load: async () => (await import('./mode-iptables.js')).mode,
      importBackend: () => import('@kpng/iptables'),
    },
  ],
  [
    'nftables',
    {
      platform: 'linux',
      backend: 'nft',
      setup: false,
      load: async () => (await import('./mode-nftables.js')).mode,
      importBackend: () => import('@kpng/nft'),
    },
  ],
  [
    'ipvs',
    {
      platform: 'linux',
      backend: 'ipvs',
      setup: true,
      load: async () => (await import('./mode-ipvs.js')).mode,
      importBackend: () => import('@kpng/ipvs'),
    },
  ],
  [
    'kernelspace',
    {
      platform: 'win32',
      backend: 'win-kernel',
      setup: false,
      load: async () => (await import('./mode-kernelspace.js')).mode,
      importBackend: () => import('@kpng/win-kernel'),
    },
  ],
  // kpng's extension: socket-level load balancing (@kpng/ebpf) with nftables for what enters the node.
  [
    'ebpf',
    {
      platform: 'linux',
      backend: 'ebpf',
      setup: false,
      load: async () => (await import('./mode-ebpf.js')).mode,
      importBackend: () => import('@kpng/ebpf'),
    },
  ],
]);

/** The named mode's entry. */
export function modeEntry(name: string): ModeEntry {
  const entry = MODES.get(name);
  if (entry === undefined) throw new Error(`no backend for mode ${name}`); // validation prevents this
  return entry;
}

/** The named mode's kube-proxy side, its backend package imported now. */
export async function loadMode(name: string): Promise<ProxyMode> {
  return modeEntry(name).load();
}

/** Removes `ip <name>` and `ip6 <name>` (where present) of each name (nftables mode's module). */
export async function removeNftTables(names: readonly string[], ctx: ModeContext): Promise<string[]> {
  return (await import('./mode-nftables.js')).removeNftTables(names, ctx);
}

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
