// The programs the fault suite runs, each in-process against the lab's fake API server and
// programming the lab's node namespace: the compat `kube-proxy` (modes nftables, iptables) and
// `kpng-nft` / `kpng-iptables`. Same cluster, same short sync period, status servers on loopback.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { backendProgram } from '@kpng/core/runtime';
import { backend as iptablesBackend } from '@kpng/iptables';
import type { LabKubeconfig } from '@kpng/lab';
import { backend as nftBackend } from '@kpng/nft';
import { main as kubeProxyMain } from '../../src/index.js';
import { NODE_NAME } from '@kpng/lab/fault';
import { freePort } from '../free-port.js';
import { kubeProxyConfigYaml } from './kube-proxy-config.js';
import { kpngArgv, nftTableOf, type ProgramName } from './program-args.js';

export type { ProgramName } from './program-args.js';

export interface ProgramOptions {
  readonly netns: string;
  readonly kubeconfig: LabKubeconfig;
  /** The drift check period and retry delay (the suite uses seconds, not upstream's 30 s). */
  readonly syncPeriod: string;
  /** kpng-<backend> only: the compat kube-proxy's full resync is hourly, as upstream's. */
  readonly fullSyncPeriod?: string;
  /** kpng-<backend> only: more flags (e.g. `--iptables-flavour legacy`). */
  readonly args?: readonly string[];
}

export interface RunningProgram {
  readonly name: ProgramName;
  /** The nft table the program writes (nft programs). */
  readonly table: string | undefined;
  /** One series' value from /metrics (0 when absent). */
  metric(series: string): Promise<number>;
  /** The sum of every series starting with `prefix` (e.g. a metric with some labels fixed). */
  metricSum(prefix: string): Promise<number>;
  readonly healthzUrl: string;
  readonly metricsUrl: string;
  logs(): string;
  /** Stops it like SIGTERM; resolves to its exit code. */
  stop(): Promise<number>;
}

export async function startProgram(name: ProgramName, options: ProgramOptions): Promise<RunningProgram> {
  const [metricsPort, healthzPort] = [await freePort(), await freePort()];
  const stop = new AbortController();
  let logs = '';
  let dir: string | undefined;
  let running: Promise<number>;
  const table = nftTableOf(name);
  if (name.startsWith('kube-proxy')) {
    const mode = name === 'kube-proxy nftables' ? 'nftables' : 'iptables';
    dir = await mkdtemp(join(tmpdir(), 'kpng-fault-'));
    const config = join(dir, 'config.yaml');
    await writeFile(
      config,
      kubeProxyConfigYaml({
        mode,
        kubeconfigPath: options.kubeconfig.path,
        metricsPort,
        healthzPort,
        syncPeriod: options.syncPeriod,
      }),
    );
    running = kubeProxyMain(
      ['--config', config, `--hostname-override=${NODE_NAME}`],
      { KPNG_NETNS: options.netns },
      {
        setOomScoreAdj: async () => {}, // never the test runner's own
        stdout: () => {},
        stderr: (text) => void (logs = (logs + text).slice(-200_000)),
        signal: stop.signal,
      },
    );
  } else {
    const module = name === 'kpng-nft' ? nftBackend : iptablesBackend;
    const pkg = name === 'kpng-nft' ? '@kpng/nft/package.json' : '@kpng/iptables/package.json';
    const main = backendProgram(module, new URL(import.meta.resolve(pkg)));
    const argv = [
      ...kpngArgv({ ...options, kubeconfigPath: options.kubeconfig.path, metricsPort, healthzPort }),
      ...(options.args ?? []),
    ];
    running = main(argv, {}, stop.signal);
  }
  const metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`;
  const metricLines = async (): Promise<string[]> =>
    (await (await fetch(metricsUrl, { signal: AbortSignal.timeout(5_000) })).text()).split('\n');
  return {
    name,
    table,
    healthzUrl: `http://127.0.0.1:${healthzPort}/healthz`,
    metricsUrl,
    async metric(series) {
      const line = (await metricLines()).find((l) => l.startsWith(series + ' '));
      return line === undefined ? 0 : Number(line.slice(series.length + 1));
    },
    async metricSum(prefix) {
      const values = (await metricLines()).filter((l) => l.startsWith(prefix)).map((l) => Number(l.split(' ').at(-1)));
      return values.reduce((a, b) => a + b, 0);
    },
    logs: () => logs,
    async stop() {
      stop.abort();
      const code = await running.catch(() => 1);
      if (dir !== undefined) await rm(dir, { recursive: true, force: true });
      return code;
    },
  };
}
