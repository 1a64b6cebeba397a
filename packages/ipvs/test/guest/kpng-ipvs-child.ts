// kpng-ipvs, or the compat `kube-proxy --proxy-mode ipvs`, as a real child process inside the VM
// (the compiled `dist/cli/main.js` of either, as shipped, bundled into one file by test/vm.test.ts
// on the host: see test/kpng-ipvs-bundle.ts), for the fault cases an in-process backend cannot
// show: `kill -9`, a PATH with shimmed kernel tools, and core's sync loop (drift checks, retries,
// metrics). It programs the lab's node namespace only (kpng-ipvs: `--netns`; kube-proxy:
// `KPNG_NETNS`); its status servers listen on loopback (the guest's: the VM's own namespace).
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnChild, type SpawnedChild } from '@kpng/kit';
import type { NetworkNamespace } from '@kpng/lab';
import { BUNDLE_RUNNER, KUBE_PROXY_RUNNER } from '../bundle-paths.js';

const METRICS = '127.0.0.1:10249';
const HEALTHZ = '127.0.0.1:10256';
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** The programs that run the IPVS backend: kpng's own, and the compat kube-proxy in ipvs mode. */
export type IpvsProgram = 'kpng-ipvs' | 'kube-proxy';

/** The compat kube-proxy's Linux modes (the swap cells start the other two on an IPVS node too). */
export type KubeProxyMode = 'ipvs' | 'nftables' | 'iptables';

const RUNNER: Record<IpvsProgram, string> = { 'kpng-ipvs': BUNDLE_RUNNER, 'kube-proxy': KUBE_PROXY_RUNNER };

export interface ChildOptions {
  /** Default kpng-ipvs. kube-proxy reads an API server only (`source.kubeconfig`). */
  readonly program?: IpvsProgram;
  /** The node namespace: the child never programs any other. */
  readonly netns: string;
  /** Where the state comes from: a manifest file (`--file`) or an API server (`--kubeconfig`). */
  readonly source: { readonly manifest: string } | { readonly kubeconfig: string };
  readonly nodeName: string;
  readonly syncPeriod: string;
  /** kube-proxy only: its `mode` (default ipvs). */
  readonly mode?: KubeProxyMode;
  /** Prepended to PATH (a kernel shim). */
  readonly pathPrefix?: string;
}

/**
 * The compat kube-proxy as upstream's is run: a KubeProxyConfiguration (mode ipvs unless told, the API server's
 * kubeconfig, status servers on loopback, the lab's pod CIDRs, the sync periods kpng-ipvs gets as
 * flags) plus `--hostname-override`; conntrack's table size left alone (maxPerCore 0) and
 * oomScoreAdj 0 (the child must stay as killable as the test runner; upstream's default is -999).
 */
export function kubeProxyIpvsConfig(o: {
  readonly kubeconfig: string;
  readonly syncPeriod: string;
  readonly mode?: KubeProxyMode;
}): string {
  return [
    'apiVersion: kubeproxy.config.k8s.io/v1alpha1',
    'kind: KubeProxyConfiguration',
    `mode: ${o.mode ?? 'ipvs'}`,
    'clientConnection:',
    `  kubeconfig: ${o.kubeconfig}`,
    `metricsBindAddress: ${METRICS}`,
    `healthzBindAddress: ${HEALTHZ}`,
    'detectLocalMode: ClusterCIDR',
    'clusterCIDR: 198.18.0.0/22,2001:db8::/46',
    'ipvs:',
    '  minSyncPeriod: 0s',
    `  syncPeriod: ${o.syncPeriod}`,
    'conntrack:',
    '  maxPerCore: 0',
    'oomScoreAdj: 0',
    '',
  ].join('\n');
}

/** One child at a time; `start` again after `kill9` (same flags). */
export class KpngIpvsChild {
  readonly #options: ChildOptions;
  readonly #program: IpvsProgram;
  readonly #args: readonly string[];
  readonly #env: Readonly<Record<string, string>>;
  /** kube-proxy's configuration folder, removed by `stop`. */
  readonly #configDir: string | undefined;
  #child: SpawnedChild | undefined;
  #logs = '';

  constructor(options: ChildOptions) {
    const program = options.program ?? 'kpng-ipvs';
    const runner = RUNNER[program];
    if (!existsSync(runner))
      throw new Error(`${runner} is missing: test/vm.test.ts bundles ${program} (after a build) before the boot`);
    this.#options = options;
    this.#program = program;
    const o = options;
    if (program === 'kube-proxy') {
      if (!('kubeconfig' in o.source)) throw new Error('the compat kube-proxy reads an API server: give a kubeconfig');
      this.#configDir = mkdtempSync(join(tmpdir(), 'kpng-ipvs-kube-proxy-'));
      const config = join(this.#configDir, 'config.yaml');
      writeFileSync(
        config,
        kubeProxyIpvsConfig({
          kubeconfig: o.source.kubeconfig,
          syncPeriod: o.syncPeriod,
          ...(o.mode !== undefined ? { mode: o.mode } : {}),
        }),
      );
      // --v=2: core's debug lines (informers, state updates) explain a failure in the logs' tail.
      this.#args = ['--config', config, `--hostname-override=${o.nodeName}`, '--v=2'];
      this.#env = { KPNG_NETNS: o.netns };
    } else {
      this.#args = [
        ...['--netns', o.netns, '--hostname-override', o.nodeName],
        ...('manifest' in o.source ? ['--file', o.source.manifest] : ['--kubeconfig', o.source.kubeconfig]),
        ...['--sync-period', o.syncPeriod, '--min-sync-period', '0s'],
        ...['--metrics-bind-address', METRICS, '--healthz-bind-address', HEALTHZ],
      ];
      this.#env = {};
    }
  }

  start(): void {
    if (this.#child !== undefined) throw new Error('already running');
    const path = [this.#options.pathPrefix, process.env['PATH']].filter((p) => p !== undefined).join(':');
    const keep = (chunk: Buffer): void => void (this.#logs = (this.#logs + chunk.toString()).slice(-400_000));
    this.#child = spawnChild([process.execPath, RUNNER[this.#program], ...this.#args], {
      env: { ...this.#env, PATH: path },
      inheritEnv: false,
      onStdout: keep,
      onStderr: keep,
    });
  }

  /** SIGKILL: no clean-up, no goodbye; resolves once it is gone. */
  async kill9(): Promise<void> {
    await this.#signal('SIGKILL');
  }

  /** SIGTERM (SIGKILL after 10 s); then removes kube-proxy's configuration file. */
  async stop(): Promise<void> {
    const child = this.#child;
    const timer = setTimeout(() => child?.kill('SIGKILL'), 10_000);
    await this.#signal('SIGTERM');
    clearTimeout(timer);
    if (this.#configDir !== undefined) rmSync(this.#configDir, { recursive: true, force: true });
  }

  logs(): string {
    return this.#logs;
  }

  /** The `operations` count of each sync the backend logged (`synced … operations=N`), in order. */
  syncOperations(): number[] {
    return [...this.#logs.matchAll(/synced.*?operations["=:]+\s*(\d+)/g)].map((m) => Number(m[1]));
  }

  /** One /metrics series' value (`name{labels}` exactly as exposed), 0 when absent or not answering. */
  async metric(series: string): Promise<number> {
    const reply = await fetch(`http://${METRICS}/metrics`, { signal: AbortSignal.timeout(5_000) }).catch(
      () => undefined,
    );
    const line = (await reply?.text())?.split('\n').find((l) => l.startsWith(`${series} `));
    return line === undefined ? 0 : Number(line.slice(series.length + 1));
  }

  /** /healthz's status code, or 0 when it does not answer within 5 s. */
  async healthz(): Promise<number> {
    const reply = await fetch(`http://${HEALTHZ}/healthz`, { signal: AbortSignal.timeout(5_000) }).catch(
      () => undefined,
    );
    return reply?.status ?? 0;
  }

  /** Polls `ready` every 200 ms until it holds; returns when (epoch ms), or throws with the logs' tail. */
  async waitFor(what: string, ready: () => Promise<boolean>, timeoutMs: number): Promise<number> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (await ready()) return Date.now();
      await sleep(200);
    }
    throw new Error(`${this.#program}: ${what} not within ${timeoutMs} ms; logs:\n${this.#logs.slice(-6_000)}`);
  }

  async #signal(signal: NodeJS.Signals): Promise<void> {
    const child = this.#child;
    if (child === undefined) return;
    this.#child = undefined;
    child.kill(signal); // nothing once it exited
    await child.exited;
  }
}

/** What the IPVS backend holds in the node namespace: IPVS, both kpng-ipvs tables, kube-ipvs0's addresses. */
export async function nodeRules(ns: NetworkNamespace): Promise<string> {
  const out = async (argv: string[]): Promise<string> => (await ns.exec(argv)).stdout;
  return [
    await out(['ipvsadm', '-Sn']),
    await out(['nft', 'list', 'table', 'ip', 'kpng-ipvs']),
    await out(['nft', 'list', 'table', 'ip6', 'kpng-ipvs']),
    await out(['ip', '-br', 'addr', 'show', 'dev', 'kube-ipvs0']),
  ].join('\n');
}
