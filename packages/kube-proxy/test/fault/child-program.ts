// A program as a real child process (the compiled `dist/cli/main.js`, as shipped): the compat
// `kube-proxy` (nftables or iptables mode) or `kpng-nft` / `kpng-iptables`, for the cases an
// in-process program cannot show: `kill -9`, a PATH with shimmed kernel tools, and its own event
// loop measured alone (health under load: as on a node, the test's fake API server, churn and heap
// do not share its thread). It programs the lab's node namespace only (KPNG_NETNS, or --netns:
// always set); status servers on loopback.
// The door e2e also runs `kpng-netpol` (same flags), `kpng-ebpf` (a manifest file and a cgroup the
// test made instead of a namespace: see DoorProgramName) and a test client (its metrics server).
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawnChild, type ProcessExit, type SpawnedChild } from '@kpng/kit';
import type { LabKubeconfig } from '@kpng/lab';
import { NODE_NAME } from '@kpng/lab/fault';
import { freePort } from '../free-port.js';
import { kubeProxyConfigYaml } from './kube-proxy-config.js';
import { kpngArgv, type ProgramName } from './program-args.js';

/**
 * Besides the fault suite's programs, the door e2e's: `kpng-netpol` (the lab's namespace, as the
 * others), `kpng-ebpf` (attached to `cgroupRoot`, over the `manifest` file: over the API server its
 * health-check node ports would open on every host address, having no namespace), and the
 * `pod-creation-reachability-latency` test client (metrics and healthz on one port).
 */
export type DoorProgramName = ProgramName | 'kpng-netpol' | 'kpng-ebpf' | 'pod-creation-reachability-latency';

const binOf = (pkg: string, bin: string) => fileURLToPath(new URL(bin, import.meta.resolve(`${pkg}/package.json`)));

/** Each program's compiled entry point (its package's `bin`). */
const MAIN: Record<DoorProgramName, string> = {
  'kube-proxy nftables': fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url)),
  'kube-proxy iptables': fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url)),
  'kpng-nft': binOf('@kpng/nft', 'dist/cli/main.js'),
  'kpng-iptables': binOf('@kpng/iptables', 'dist/cli/main.js'),
  'kpng-netpol': binOf('@kpng/netpol', 'dist/cli/main.js'),
  'kpng-ebpf': binOf('@kpng/ebpf', 'dist/cli/main.js'),
  'pod-creation-reachability-latency': binOf('@kpng/test-clients', 'dist/bin/pod-creation-reachability-latency.js'),
};

/** The child: its flags and environment put it in the node namespace (see ChildProgram). */
function spawnProgram(
  main: string,
  args: readonly string[],
  env: Readonly<Record<string, string>>,
  onOutput: (chunk: Buffer) => void,
): SpawnedChild {
  return spawnChild([process.execPath, main, ...args], { env, onStdout: onOutput, onStderr: onOutput });
}

export interface ChildOptions {
  readonly program: DoorProgramName;
  /** The node namespace: the child never programs any other. */
  readonly netns: string;
  readonly kubeconfig: LabKubeconfig;
  readonly syncPeriod: string;
  /** Prepended to PATH (a kernel shim). */
  readonly pathPrefix?: string;
  /** The backend's kernel write timeout (a duration); default the backend's. */
  readonly writeTimeout?: string;
  /** `kpng-ebpf` only: the cgroup v2 directory it attaches to (the test's own) and its cluster file. */
  readonly ebpf?: { readonly cgroupRoot: string; readonly manifest: string };
  /** kpng-<backend> only: more flags (e.g. `--iptables-flavour legacy`). */
  readonly args?: readonly string[];
}

/** One child at a time; `start` again after `kill9` or `stop` (same ports, same flags). */
export class ChildProgram {
  readonly #options: ChildOptions;
  readonly #dir: string;
  readonly #args: readonly string[];
  /** The compat kube-proxy takes the namespace and the write timeout from its environment. */
  readonly #env: Readonly<Record<string, string>>;
  readonly healthzUrl: string;
  readonly metricsUrl: string;
  #child: SpawnedChild | undefined;
  /** How the running child ended, once it has. */
  #exit: ProcessExit | undefined;
  #logs = '';

  private constructor(options: ChildOptions, dir: string, metricsPort: number, healthzPort: number) {
    this.#options = options;
    this.#dir = dir;
    this.healthzUrl = `http://127.0.0.1:${healthzPort}/healthz`;
    this.metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`;
    const { netns, writeTimeout } = options;
    if (options.program === 'pod-creation-reachability-latency') {
      // Go-flag syntax; /healthz is on the metrics port.
      this.healthzUrl = `http://127.0.0.1:${metricsPort}/healthz`;
      this.#args = [
        `-Kubeconfig=${options.kubeconfig.path}`,
        '-HostNamespace=default',
        '-TargetNamespace=default',
        '-TargetLabelSelector=app=door-target',
        '-TargetPort=8080',
        `-MetricsPort=${metricsPort}`,
        '-MetricsBindAddress=127.0.0.1',
      ];
      this.#env = {};
    } else if (options.program === 'kpng-ebpf') {
      if (options.ebpf === undefined) throw new Error('kpng-ebpf needs a cgroup and a manifest');
      this.#args = [
        ['--file', join(dir, 'cluster.yaml')],
        ['--node-name', 'node-a'],
        ['--cgroup-root', options.ebpf.cgroupRoot],
        ['--sync-period', options.syncPeriod],
        ['--metrics-bind-address', `127.0.0.1:${metricsPort}`],
        ['--healthz-bind-address', `127.0.0.1:${healthzPort}`],
      ].flat();
      this.#env = {};
    } else if (options.program.startsWith('kube-proxy')) {
      this.#args = ['--config', join(dir, 'config.yaml'), `--hostname-override=${NODE_NAME}`];
      this.#env = { KPNG_NETNS: netns, ...(writeTimeout === undefined ? {} : { KPNG_WRITE_TIMEOUT: writeTimeout }) };
    } else {
      const policyOnly = options.program === 'kpng-netpol';
      this.#args = [
        ...kpngArgv({
          ...options,
          kubeconfigPath: options.kubeconfig.path,
          metricsPort,
          healthzPort,
          policyOnly,
        }),
        ...(options.args ?? []),
      ];
      this.#env = {};
    }
  }

  static async create(options: ChildOptions): Promise<ChildProgram> {
    const main = MAIN[options.program];
    if (!existsSync(main)) throw new Error(`${main} is missing: build first (npx nx run-many -t build)`);
    const [metricsPort, healthzPort] = [await freePort(), await freePort()];
    const dir = await mkdtemp(join(tmpdir(), 'kpng-fault-child-'));
    const child = new ChildProgram(options, dir, metricsPort, healthzPort);
    if (options.ebpf !== undefined) await writeFile(join(dir, 'cluster.yaml'), options.ebpf.manifest);
    if (options.program.startsWith('kube-proxy')) {
      const mode = options.program === 'kube-proxy nftables' ? 'nftables' : 'iptables';
      // oomScoreAdj 0: the child must stay as killable as the test runner (upstream's default is -999).
      const config = kubeProxyConfigYaml({
        ...options,
        mode,
        kubeconfigPath: options.kubeconfig.path,
        metricsPort,
        healthzPort,
      });
      await writeFile(join(dir, 'config.yaml'), `${config}oomScoreAdj: 0\n`);
    }
    return child;
  }

  start(): void {
    if (this.#child !== undefined) throw new Error('already running');
    const path = [this.#options.pathPrefix, process.env['PATH']].filter((p) => p !== undefined).join(':');
    const child = spawnProgram(
      MAIN[this.#options.program],
      this.#args,
      { ...this.#env, PATH: path },
      (chunk) => void (this.#logs = (this.#logs + chunk.toString()).slice(-200_000)),
    );
    this.#exit = undefined;
    void child.exited.then((exit) => {
      if (this.#child === child) this.#exit = exit;
    });
    this.#child = child;
  }

  /** SIGKILL: no clean-up, no goodbye; resolves once it is gone. */
  async kill9(): Promise<void> {
    const child = this.#child;
    if (child === undefined) return;
    child.kill('SIGKILL');
    await child.exited;
    this.#child = undefined;
  }

  /** SIGTERM; resolves to its exit code. */
  async stop(): Promise<number | undefined> {
    const child = this.#child;
    if (child === undefined) return undefined;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    const result = await child.exited;
    clearTimeout(timer);
    this.#child = undefined;
    return result.exitCode ?? undefined;
  }

  async close(): Promise<void> {
    await this.stop();
    await rm(this.#dir, { recursive: true, force: true });
  }

  logs(): string {
    return this.#logs;
  }

  /** The running child's process id (undefined when stopped). */
  pid(): number | undefined {
    return this.#child?.pid;
  }

  /** The child's exit code once it has exited, else undefined (running or stopped by us). */
  exitCode(): number | undefined {
    return this.#child === undefined ? undefined : (this.#exit?.exitCode ?? undefined);
  }

  /** /healthz's status code, or 0 when it does not answer within 1 s. */
  async healthz(): Promise<number> {
    const reply = await fetch(this.healthzUrl, { signal: AbortSignal.timeout(1_000) }).catch(() => undefined);
    return reply?.status ?? 0;
  }

  /** The sum of every /metrics series starting with `prefix` and containing `having` (0 when absent or not answering). */
  async metricSum(prefix: string, having = ''): Promise<number> {
    const reply = await fetch(this.metricsUrl, { signal: AbortSignal.timeout(2_000) }).catch(() => undefined);
    if (reply === undefined) return 0;
    const lines = (await reply.text()).split('\n').filter((l) => l.startsWith(prefix) && l.includes(having));
    return lines.map((l) => Number(l.split(' ').at(-1))).reduce((a, b) => a + b, 0);
  }
}
