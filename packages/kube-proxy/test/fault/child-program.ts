// The compat `kube-proxy` as a real child process (the compiled `dist/cli/main.js`, as shipped),
// for the cases an in-process program cannot show: `kill -9` and a PATH with shimmed kernel tools.
// It programs the lab's node namespace only (KPNG_NETNS, always set); status servers on loopback.
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import type { LabKubeconfig } from '@kpng/lab';
import { NODE_NAME } from '../objects.js';
import { freePort } from '../free-port.js';
import { kubeProxyConfigYaml } from './kube-proxy-config.js';

const MAIN = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));

/** The child, in the node namespace only (KPNG_NETNS), with `path` as its PATH. */
function spawnKubeProxy(args: readonly string[], netns: string, path: string, writeTimeout: string | undefined) {
  return execa(process.execPath, [MAIN, ...args], {
    reject: false,
    buffer: false,
    stdin: 'ignore',
    all: true,
    env: { KPNG_NETNS: netns, PATH: path, ...(writeTimeout === undefined ? {} : { KPNG_WRITE_TIMEOUT: writeTimeout }) },
  });
}

export interface ChildOptions {
  readonly mode: 'nftables' | 'iptables';
  /** The node namespace: the child never programs any other. */
  readonly netns: string;
  readonly kubeconfig: LabKubeconfig;
  readonly syncPeriod: string;
  /** Prepended to PATH (a kernel shim). */
  readonly pathPrefix?: string;
  /** The backend's kernel write timeout (KPNG_WRITE_TIMEOUT, a duration); default the backend's. */
  readonly writeTimeout?: string;
}

/** One kube-proxy child at a time; `start` again after `kill9` or `stop` (same ports, same config). */
export class ChildKubeProxy {
  readonly #options: ChildOptions;
  readonly #dir: string;
  readonly #config: string;
  readonly healthzUrl: string;
  readonly metricsUrl: string;
  #child: ReturnType<typeof spawnKubeProxy> | undefined;
  #logs = '';

  private constructor(options: ChildOptions, dir: string, metricsPort: number, healthzPort: number) {
    this.#options = options;
    this.#dir = dir;
    this.#config = join(dir, 'config.yaml');
    this.healthzUrl = `http://127.0.0.1:${healthzPort}/healthz`;
    this.metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`;
  }

  static async create(options: ChildOptions): Promise<ChildKubeProxy> {
    if (!existsSync(MAIN)) throw new Error(`${MAIN} is missing: build first (npx nx run @kpng/kube-proxy:build)`);
    const [metricsPort, healthzPort] = [await freePort(), await freePort()];
    const child = new ChildKubeProxy(
      options,
      await mkdtemp(join(tmpdir(), 'kpng-fault-child-')),
      metricsPort,
      healthzPort,
    );
    // oomScoreAdj 0: the child must stay as killable as the test runner (upstream's default is -999).
    const config = kubeProxyConfigYaml({
      ...options,
      kubeconfigPath: options.kubeconfig.path,
      metricsPort,
      healthzPort,
    });
    await writeFile(
      child.#config,
      `${config}oomScoreAdj: 0
`,
    );
    return child;
  }

  start(): void {
    if (this.#child !== undefined) throw new Error('already running');
    const path = [this.#options.pathPrefix, process.env['PATH']].filter((p) => p !== undefined).join(':');
    const child = spawnKubeProxy(
      ['--config', this.#config, `--hostname-override=${NODE_NAME}`],
      this.#options.netns,
      path,
      this.#options.writeTimeout,
    );
    child.all?.on('data', (chunk: Buffer) => void (this.#logs = (this.#logs + chunk.toString()).slice(-200_000)));
    this.#child = child;
  }

  /** SIGKILL: no clean-up, no goodbye; resolves once it is gone. */
  async kill9(): Promise<void> {
    const child = this.#child;
    if (child === undefined) return;
    child.kill('SIGKILL');
    await child;
    this.#child = undefined;
  }

  /** SIGTERM; resolves to its exit code. */
  async stop(): Promise<number | undefined> {
    const child = this.#child;
    if (child === undefined) return undefined;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    const result = await child;
    clearTimeout(timer);
    this.#child = undefined;
    return result.exitCode;
  }

  async close(): Promise<void> {
    await this.stop();
    await rm(this.#dir, { recursive: true, force: true });
  }

  logs(): string {
    return this.#logs;
  }

  /** /healthz's status code, or 0 when it does not answer within 1 s. */
  async healthz(): Promise<number> {
    const reply = await fetch(this.healthzUrl, { signal: AbortSignal.timeout(1_000) }).catch(() => undefined);
    return reply?.status ?? 0;
  }

  /** The sum of every /metrics series starting with `prefix` (0 when absent or not answering). */
  async metricSum(prefix: string): Promise<number> {
    const reply = await fetch(this.metricsUrl, { signal: AbortSignal.timeout(2_000) }).catch(() => undefined);
    if (reply === undefined) return 0;
    const lines = (await reply.text()).split('\n').filter((l) => l.startsWith(prefix));
    return lines.map((l) => Number(l.split(' ').at(-1))).reduce((a, b) => a + b, 0);
  }
}
