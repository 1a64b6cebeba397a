// kpng-ipvs as a real child process inside the VM (the compiled `dist/cli/main.js`, as shipped,
// bundled into one file by test/vm.test.ts on the host: see test/kpng-ipvs-bundle.ts), for the fault cases an in-process backend cannot show: `kill -9`, a PATH with shimmed kernel
// tools, and core's sync loop (drift checks, retries, metrics). It programs the lab's node
// namespace only (`--netns`); its status servers listen on the guest's loopback.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import type { NetworkNamespace } from '@kpng/lab';
import { BUNDLE_RUNNER } from '../bundle-paths.js';

const METRICS = '127.0.0.1:10249';
const HEALTHZ = '127.0.0.1:10256';
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export interface ChildOptions {
  /** The node namespace: the child never programs any other. */
  readonly netns: string;
  /** Where the state comes from: a manifest file (`--file`) or an API server (`--kubeconfig`). */
  readonly source: { readonly manifest: string } | { readonly kubeconfig: string };
  readonly nodeName: string;
  readonly syncPeriod: string;
  /** Prepended to PATH (a kernel shim). */
  readonly pathPrefix?: string;
}

/** One child at a time; `start` again after `kill9` (same flags). */
export class KpngIpvsChild {
  readonly #options: ChildOptions;
  #child: ChildProcess | undefined;
  #logs = '';

  constructor(options: ChildOptions) {
    if (!existsSync(BUNDLE_RUNNER))
      throw new Error(`${BUNDLE_RUNNER} is missing: test/vm.test.ts bundles kpng-ipvs (after a build) before the boot`);
    this.#options = options;
  }

  start(): void {
    if (this.#child !== undefined) throw new Error('already running');
    const o = this.#options;
    const args = [
      ...['--netns', o.netns, '--hostname-override', o.nodeName],
      ...('manifest' in o.source ? ['--file', o.source.manifest] : ['--kubeconfig', o.source.kubeconfig]),
      ...['--sync-period', o.syncPeriod, '--min-sync-period', '0s'],
      ...['--metrics-bind-address', METRICS, '--healthz-bind-address', HEALTHZ],
    ];
    const path = [o.pathPrefix, process.env['PATH']].filter((p) => p !== undefined).join(':');
    const child = spawn(process.execPath, [BUNDLE_RUNNER, ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { PATH: path },
    });
    const keep = (chunk: Buffer): void => void (this.#logs = (this.#logs + chunk.toString()).slice(-400_000));
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    this.#child = child;
  }

  /** SIGKILL: no clean-up, no goodbye; resolves once it is gone. */
  async kill9(): Promise<void> {
    await this.#signal('SIGKILL');
  }

  /** SIGTERM (SIGKILL after 10 s). */
  async stop(): Promise<void> {
    const timer = setTimeout(() => this.#child?.kill('SIGKILL'), 10_000);
    await this.#signal('SIGTERM');
    clearTimeout(timer);
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
    throw new Error(`kpng-ipvs: ${what} not within ${timeoutMs} ms; logs:\n${this.#logs.slice(-4_000)}`);
  }

  async #signal(signal: NodeJS.Signals): Promise<void> {
    const child = this.#child;
    if (child === undefined) return;
    this.#child = undefined;
    if (child.exitCode !== null || child.signalCode !== null) return;
    const gone = new Promise((r) => child.once('exit', r));
    child.kill(signal);
    await gone;
  }
}

/** What kpng-ipvs holds in the node namespace: IPVS, both kpng-ipvs tables, kube-ipvs0's addresses. */
export async function nodeRules(ns: NetworkNamespace): Promise<string> {
  const out = async (argv: string[]): Promise<string> => (await ns.exec(argv)).stdout;
  return [
    await out(['ipvsadm', '-Sn']),
    await out(['nft', 'list', 'table', 'ip', 'kpng-ipvs']),
    await out(['nft', 'list', 'table', 'ip6', 'kpng-ipvs']),
    await out(['ip', '-br', 'addr', 'show', 'dev', 'kube-ipvs0']),
  ].join('\n');
}
