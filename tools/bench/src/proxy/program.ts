/**
 * The programs the proxy suite runs, and how each is started: `kpng-nft` (kpng's own command
 * line, `--netns`) and the compat `kube-proxy` binary (upstream's flags; the namespace it programs
 * comes from `KPNG_NETNS`, as in its e2e test and the release image test). Pure: argument building
 * and the namespace guard, unit-tested in `program.test.ts`.
 */
import { ownerPid } from '@kpng/lab';

export const PROGRAMS = ['kpng-nft', 'kube-proxy', 'kpng-ebpf'] as const;
export type ProgramName = (typeof PROGRAMS)[number];

export interface LaunchInput {
  readonly kubeconfig: string;
  readonly nodeName: string;
  /** The bench's test namespace the program programs. */
  readonly netns: string;
  readonly metricsPort: number;
  readonly healthPort: number;
  /** kube-proxy only: `--iptables-min-sync-period` (which nftables mode reads too, as upstream). */
  readonly minSyncPeriod?: string;
  /** kpng-ebpf only: the cgroup v2 directory it attaches to (one the bench created). */
  readonly cgroup?: string;
}

export interface Launch {
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  /** The log line after which the program's modules are loaded and its configuration read. */
  readonly readyMsg: string;
}

/** Metric names start with this: `proxy.start-to-programmed`, `compat.start-to-programmed`. */
export const METRIC_PREFIX: Readonly<Record<ProgramName, string>> = {
  'kpng-nft': 'proxy',
  'kube-proxy': 'compat',
  'kpng-ebpf': 'proxy-ebpf',
};

/** The log line of each program's sync (`full` says which kind). */
export const SYNC_MSG: Readonly<Record<ProgramName, string>> = {
  'kpng-nft': 'synced nftables',
  'kube-proxy': 'synced nftables',
  'kpng-ebpf': 'synced ebpf maps',
};

export function parseProgram(value: unknown): ProgramName {
  if (value === undefined || value === true) return 'kpng-nft';
  const found = PROGRAMS.find((p) => p === value);
  if (found === undefined) throw new Error(`--program must be one of ${PROGRAMS.join(', ')}, not ${String(value)}`);
  return found;
}

/**
 * Why `netns` is not a namespace the compat binary may run against, or undefined when it is:
 * its start-up cleanup deletes tables (and writes conntrack sysctls) in whatever namespace it
 * programs, so it only ever gets a lab namespace this very process created (`kpng-t-<pid>-...`)
 * and that exists (`exists` checks /run/netns). Never the root namespace (no KPNG_NETNS).
 */
export function namespaceRefusal(
  netns: string | undefined,
  pid: number,
  exists: (name: string) => boolean,
): string | undefined {
  if (netns === undefined || netns === '') return 'no test namespace given: it would program the root namespace';
  if (ownerPid(netns) !== pid)
    return `${JSON.stringify(netns)} is not a lab namespace created by this process (${pid})`;
  if (!exists(netns)) return `the namespace ${JSON.stringify(netns)} does not exist`;
  return undefined;
}

export function programLaunch(program: ProgramName, input: LaunchInput): Launch {
  const metrics = `127.0.0.1:${input.metricsPort}`;
  const health = `127.0.0.1:${input.healthPort}`;
  if (program === 'kpng-nft' || program === 'kpng-ebpf') {
    if (program === 'kpng-ebpf' && input.cgroup === undefined)
      throw new Error('kpng-ebpf needs the cgroup the bench created');
    // kpng-ebpf attaches to the cgroup (no --netns; no process is ever moved into it).
    const target = program === 'kpng-ebpf' ? ['--cgroup-root', input.cgroup!] : ['--netns', input.netns];
    return {
      args: [
        '--kubeconfig',
        input.kubeconfig,
        '--node-name',
        input.nodeName,
        ...target,
        '--metrics-bind-address',
        metrics,
        '--healthz-bind-address',
        health,
        '--logging-format=json',
      ],
      env: {},
      readyMsg: 'serving',
    };
  }
  return {
    args: [
      '--proxy-mode=nftables',
      `--kubeconfig=${input.kubeconfig}`,
      `--hostname-override=${input.nodeName}`,
      `--metrics-bind-address=${metrics}`,
      `--healthz-bind-address=${health}`,
      '--logging-format=json',
      // kpng-nft's default (a lone change syncs at once), so that both programs' one-change
      // figures measure the same thing rather than upstream's 1 s rate limit.
      `--iptables-min-sync-period=${input.minSyncPeriod ?? '0s'}`,
      // Health check node ports on the node's InternalIP (198.18.255.x) would be opened in the
      // bench's own (root) namespace, where that address does not exist: restrict them to
      // loopback, which the scenario's node does not have, so none is opened.
      '--nodeport-addresses=127.0.0.0/8',
      // Leave the host's conntrack table size and this process's OOM score alone.
      '--conntrack-max-per-core=0',
      '--oom-score-adj=0',
    ],
    env: { KPNG_NETNS: input.netns },
    readyMsg: 'starting kube-proxy (kpng)',
  };
}
