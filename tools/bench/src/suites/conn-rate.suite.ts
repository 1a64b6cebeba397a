import { mkdirSync, rmdirSync } from 'node:fs';
import { loadavg } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { inNetns, processExecer, runChecked, withTimeout } from '@kpng/kit';
import { EbpfBackend, readCgroupV2Mounts } from '@kpng/ebpf';
import { ECHO_PORT, Lab } from '@kpng/lab';
import { SILENT_LOGGER } from '@kpng/core/testing';
import type { Backend, NodeLocalState } from '@kpng/core';
import { NftBackend } from '@kpng/nft';
import { createNftClient } from '@kpng/nftables';
import { perSecond, rateFigures, roundOrder, type RateSample } from '../connrate/figures.js';
import { firstServices, TARGET_CLUSTER_IP, TARGET_PORT, withTarget } from '../connrate/objects.js';
import {
  conntrackStat,
  parseSocketState,
  SOCKET_STATE_FILES,
  socketStateDelta,
  type SocketState,
} from '../connrate/socket-state.js';
import { garbageCollector } from '../runner/gc.js';
import { summarize } from '../runner/stats.js';
import { coreOver } from './kernel-helpers.js';
import { requireNamespaces } from './namespaces.js';
import { defineSuite, type SuiteContext } from './suite.js';

const CLIENT = fileURLToPath(new URL('../../scripts/conn-rate-client.mjs', import.meta.url));
const SMALL = 10;
const SETTLE_MS = 1_000;

/**
 * New-connection rate to one ClusterIP with the scenario loaded vs with 10 Services (target
 * >= 0.9x at s10k). The lab (a node namespace holding the rules, a client pod, a server pod with
 * the lab's echo server) and the nft backend programming the node; both clusters get one target
 * Service whose only endpoint is the server pod. Each round programs the scenario (full sync),
 * waits 1 s, times `scripts/conn-rate-client.mjs` in the client pod opening fresh TCP connections to the
 * ClusterIP for `--duration-ms` (default 3000, `--concurrency` at a time, default 8; a
 * connection counts when the server's answer arrives), then programs the 10-Service cluster and
 * times the same, in alternating order (`roundOrder`): `max(--runs, 3)` rounds, medians, each
 * round's ratio.
 * Figures: `conn-rate.loaded` / `conn-rate.small` (connections/s), `conn-rate.loaded.vs.small`
 * (median of the per-round ratios) and `.ratio-of-medians`; the same per second of the client's
 * CPU time (`.per-cpu-s`: user + system, the kernel's work on its packets included; scheduling
 * delay on a busy machine barely moves it); `conn-rate.load-1m`, the machine's
 * 1-minute load average over the samples.
 * `--backend ebpf` (issue 29): the eBPF backend instead, its programs attached to a child cgroup
 * of the cgroup v2 root this suite creates and removes, the client process moved into it (the
 * ClusterIP is balanced at connect(), no rules); figures `conn-rate.ebpf.*`. `--backend both`:
 * both backends set up side by side and alternating within each round (nft then ebpf, the next
 * round ebpf then nft; each backend programs a cluster just before its own sample, the other keeps
 * what it last held: nft's rules see no Service address while the ebpf client runs, its
 * connections leave the pod already addressed to the server), plus `conn-rate.ebpf.loaded.vs.nft`,
 * `.small.vs.nft` and their `.per-cpu-s.vs.nft` (ratios of medians), `.pairs` (median of the
 * rounds' ebpf/nft ratios).
 *
 * What one sample leaves for the next (`--close`, default `rst`). The echo server answers and
 * closes first, so with an orderly close (`--close=fin`, what the suite did before) the server's
 * namespace keeps every connection's 4-tuple in TIME_WAIT for 60 s (and the node's conntrack its
 * entry for 120 s). At ~5,000 connections/s a sample leaves ~15,000 and the client's next ports land
 * on those tuples within seconds. A SYN on a TIME_WAIT tuple whose timestamp is older than the one
 * the server remembers is refused (PAWS): the timestamp offset is per address pair, and nft's client
 * connects to the ClusterIP where ebpf's is rewritten to the pod, so after a sample of the other
 * backend one of the two is always older. The server answers with an ACK, the client resets and
 * sends its SYN again: measured one for one (a `--close=fin` run at load 15: server PAWS refusals
 * = client SYN retransmits, up to 67 a sample, 22,000 TIME_WAIT in the server's namespace, none in
 * the client's; no conntrack clash). The rates fell from round to round on a quiet machine (nft
 * 5,400 to 1,600 conn/s, ebpf 4,600 to 300): the suite measured what earlier samples left, not the
 * path. With `rst` the client resets each connection once the answer and the server's FIN arrived
 * (`resetAndDestroy`): no TIME_WAIT on either side; and the node's conntrack (the lab's namespace,
 * never the host's) is emptied before each sample, so every sample starts from the same table
 * whichever backend ran before. Each sample logs what it left (`src/connrate/socket-state.ts`):
 * TIME_WAIT in the client and server namespaces, the node's conntrack entries and clashes
 * (`insert_failed`), the client's SYN retransmits and the server's PAWS refusals;
 * `conn-rate[.ebpf].syn-retransmits` reports the client's per sample (0 in the `rst` runs so far).
 * The client reports its cgroup: an ebpf sample from outside the backend's cgroup (nft's rules
 * would still answer it) fails the run.
 */
export default defineSuite({
  name: 'conn-rate',
  description:
    'fresh TCP connections/s through one ClusterIP with the scenario loaded vs with 10 Services (nft; --backend ebpf|both)',
  scenarios: ['s1k', 's10k', 's10k-wide'],
  async run(ctx) {
    await requireNamespaces('conn-rate');
    const lab = await Lab.create({ pods: ['client', 'server'] });
    const onAbort = (): void => void lab.delete();
    ctx.signal.addEventListener('abort', onAbort, { once: true });
    try {
      await measureRates(ctx, lab);
    } finally {
      ctx.signal.removeEventListener('abort', onAbort);
      await lab.delete();
    }
  },
});

async function measureRates(ctx: SuiteContext, lab: Lab): Promise<void> {
  const server = lab.pod('server');
  const client = lab.pod('client');
  await lab.startEcho('server', [ECHO_PORT]);
  // Fresh connections by the ten thousand: a wide port range in the client's namespace (its own
  // sysctl, not the host's). The client keeps no TIME_WAIT either way (the server closes first).
  await client.namespace.sysctl({ 'net.ipv4.ip_local_port_range': '1024 65000' });
  const objects = ctx.objects();
  const clusters = {
    loaded: coreOver(withTarget(objects, server.ipv4, ECHO_PORT)).first.state,
    small: coreOver(withTarget(firstServices(objects, SMALL), server.ipv4, ECHO_PORT)).first.state,
  };
  ctx.log(`conn-rate: ${clusters.loaded.services.length} vs ${clusters.small.services.length} Services on the node`);
  const which = String(ctx.options['backend'] ?? 'nft');
  if (!['nft', 'ebpf', 'both'].includes(which)) throw new Error('--backend takes nft, ebpf or both');
  const names = which === 'both' ? (['nft', 'ebpf'] as const) : ([which] as ['nft' | 'ebpf']);
  const durationMs = Number(ctx.options['duration-ms'] ?? 3000);
  const concurrency = Number(ctx.options['concurrency'] ?? 8);
  const close = String(ctx.options['close'] ?? 'rst');
  if (close !== 'rst' && close !== 'fin') throw new Error('--close takes rst or fin');
  const nft = await createNftClient({ netns: lab.node.namespace.name });
  const [root] = readCgroupV2Mounts();
  const cgroup =
    names.includes('ebpf') && root !== undefined ? join(root, `kpng-bench-connrate-${process.pid}`) : undefined;
  if (names.includes('ebpf') && cgroup === undefined) throw new Error('--backend ebpf needs a cgroup v2 mount');
  let rates: Record<string, Rates> = {};
  const backends: Measured[] = [];
  try {
    if (cgroup !== undefined) mkdirSync(cgroup);
    for (const name of names) {
      const backend: Backend =
        name === 'nft'
          ? new NftBackend({ nft, conntrack: false, log: SILENT_LOGGER })
          : new EbpfBackend({ cgroup: cgroup!, logger: SILENT_LOGGER });
      backends.push({ name, backend, cgroup: name === 'ebpf' ? cgroup : undefined });
      await backend.setup?.();
    }
    rates = await rounds(ctx, lab, backends, clusters, { durationMs, concurrency, close });
  } finally {
    // nft's rules go with the lab's namespace; the ebpf programs are detached here.
    for (const { name, backend } of backends) if (name === 'ebpf') await backend.close?.();
    await nft.close();
    if (cgroup !== undefined) rmdirSync(cgroup);
  }
  for (const name of names) report(ctx, name === 'nft' ? 'conn-rate' : 'conn-rate.ebpf', rates[name]!);
  const [e, n] = [rates['ebpf'], rates['nft']];
  if (e !== undefined && n !== undefined) {
    ctx.reportValue('conn-rate.ebpf.loaded.vs.nft', e.loaded.p50 / n.loaded.p50, 'x');
    ctx.reportValue('conn-rate.ebpf.small.vs.nft', e.small.p50 / n.small.p50, 'x');
    // Each round's ebpf sample over its nft sample, measured minutes apart at most: the median.
    const pairs = (which: 'loaded' | 'small') =>
      summarize(
        e.samples[which]
          .slice(0, n.samples[which].length)
          .map((sample, i) => perSecond(sample) / perSecond(n.samples[which][i]!)),
      );
    for (const which of ['loaded', 'small'] as const) {
      const p = pairs(which);
      ctx.report({
        scenario: ctx.scenario,
        metric: `conn-rate.ebpf.${which}.vs.nft.pairs`,
        value: p.p50,
        unit: 'x',
        n: p.n,
        p50: p.p50,
        p99: p.p99,
      });
    }
    if (e.perCpu !== undefined && n.perCpu !== undefined) {
      ctx.reportValue('conn-rate.ebpf.loaded.per-cpu-s.vs.nft', e.perCpu.loaded.p50 / n.perCpu.loaded.p50, 'x');
      ctx.reportValue('conn-rate.ebpf.small.per-cpu-s.vs.nft', e.perCpu.small.p50 / n.perCpu.small.p50, 'x');
    }
  }
}

/** One backend under measurement; `cgroup`: the ebpf backend's, the client process runs in it. */
interface Measured {
  readonly name: 'nft' | 'ebpf';
  readonly backend: Backend;
  readonly cgroup: string | undefined;
}

type Rates = ReturnType<typeof rateFigures> & {
  loads: number[];
  samples: Record<'loaded' | 'small', RateSample[]>;
  /** The client's SYN retransmits in each sample. */
  synRetransmits: number[];
};

interface RoundOptions {
  readonly durationMs: number;
  readonly concurrency: number;
  readonly close: 'rst' | 'fin';
}

interface ClientResult extends RateSample {
  readonly wrong: number;
  readonly errors: number;
  readonly lastError?: string;
  readonly cgroup?: string;
}

/** One namespace's socket counters (`src/connrate/socket-state.ts`). */
async function socketState(lab: Lab, pod: string): Promise<SocketState> {
  const { stdout } = await lab.pod(pod).namespace.exec(['cat', ...SOCKET_STATE_FILES]);
  return parseSocketState(stdout);
}

/** The node namespace's conntrack: entries, and new ones refused for a clash (`insert_failed`). */
async function nodeConntrack(lab: Lab): Promise<{ entries: number; clashes: number }> {
  const count = await lab.node.namespace.exec(['cat', '/proc/sys/net/netfilter/nf_conntrack_count'], { check: false });
  const { stdout } = await lab.node.namespace.exec(['conntrack', '-S']);
  return {
    entries: count.exitCode === 0 ? Number(count.stdout.trim()) : Number.NaN,
    clashes: conntrackStat(stdout, 'insert_failed'),
  };
}

async function rounds(
  ctx: SuiteContext,
  lab: Lab,
  backends: readonly Measured[],
  clusters: Record<'loaded' | 'small', NodeLocalState>,
  options: RoundOptions,
): Promise<Record<string, Rates>> {
  const client = lab.pod('client');
  const samples = new Map(backends.map((b) => [b.name, { loaded: [] as RateSample[], small: [] as RateSample[] }]));
  const loads = new Map(backends.map((b) => [b.name, [] as number[]]));
  const retransmits = new Map(backends.map((b) => [b.name, [] as number[]]));
  let revision = 0;
  const total = Math.max(ctx.runs, 3);
  for (let round = 0; round < total && !ctx.signal.aborted; round++) {
    // Backends alternate too: nft first in even rounds, ebpf first in odd ones.
    const order = round % 2 === 0 ? backends : [...backends].reverse();
    for (const { name, backend, cgroup } of order)
      for (const which of roundOrder(round)) {
        await backend.sync({
          state: clusters[which],
          changes: { triggerTimes: new Map(), nodeChanged: true },
          full: true,
          revision: ++revision,
        });
        // Let the sync's aftermath settle (this process's garbage; nft and the kernel freeing the
        // previous rules) before the client runs.
        garbageCollector()?.();
        await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
        if (cgroup === undefined) {
          const probe = await lab.probe(client, {
            proto: 'tcp',
            ip: TARGET_CLUSTER_IP,
            port: TARGET_PORT,
            timeoutMs: 2_000,
          });
          if (!probe.ok || probe.server !== 'server')
            throw new Error(`the ClusterIP does not reach the server pod: ${JSON.stringify(probe)}`);
        }
        const argv = inNetns(client.namespace.name, [
          process.execPath,
          CLIENT,
          TARGET_CLUSTER_IP,
          String(TARGET_PORT),
          String(options.durationMs),
          String(options.concurrency),
          'server',
          options.close,
        ]);
        // `ip netns exec` remounts /sys (hiding the cgroup mount): the shell moves itself in first.
        const command =
          cgroup === undefined ? argv : ['sh', '-c', 'echo $$ > "$0" && exec "$@"', `${cgroup}/cgroup.procs`, ...argv];
        // With resets nothing is left in the pods' namespaces; the node's conntrack still holds
        // each connection for 10 s (CLOSE), NATed (nft) or not (ebpf): every sample starts from an
        // empty table, whichever backend ran before (the lab's node namespace only).
        if (options.close === 'rst') await lab.node.namespace.exec(['conntrack', '-F']);
        const [clientBefore, serverBefore] = [await socketState(lab, 'client'), await socketState(lab, 'server')];
        const conntrackBefore = await nodeConntrack(lab);
        const { stdout } = await runChecked(withTimeout(processExecer, options.durationMs + 60_000), command);
        const result = JSON.parse(stdout) as ClientResult;
        const inCgroup = cgroup !== undefined && (result.cgroup ?? '').endsWith(`/${basename(cgroup)}`);
        if (inCgroup !== (cgroup !== undefined))
          throw new Error(`the ${name} client ran in cgroup ${JSON.stringify(result.cgroup)} (backend's: ${cgroup})`);
        const clientLeft = socketStateDelta(clientBefore, await socketState(lab, 'client'));
        const serverLeft = socketStateDelta(serverBefore, await socketState(lab, 'server'));
        const conntrackAfter = await nodeConntrack(lab);
        retransmits.get(name)!.push(clientLeft.synRetransmits);
        if (result.wrong > 0 || result.errors > 0)
          ctx.log(`conn-rate: ${which}: ${result.wrong} wrong answers, ${result.errors} errors (${result.lastError})`);
        if (result.connections === 0) throw new Error(`no connection answered: ${stdout}`);
        samples.get(name)![which].push(result);
        const load = loadavg()[0] ?? Number.NaN;
        loads.get(name)!.push(load);
        ctx.log(
          `conn-rate: ${name} round ${round + 1}/${total} ${which}: ${Math.round((result.connections * 1000) / result.ms)}/s, ${Math.round((result.connections * 1000) / (result.cpuMs ?? Number.NaN))}/s of client CPU (load ${load.toFixed(2)}); ` +
            `left TIME_WAIT client ${clientLeft.timeWait}, server ${serverLeft.timeWait}, node conntrack ${conntrackAfter.entries}; ` +
            `SYN retransmits ${clientLeft.synRetransmits}, server PAWS refusals ${serverLeft.pawsRejected}, ` +
            `node conntrack clashes ${conntrackAfter.clashes - conntrackBefore.clashes}`,
        );
      }
  }
  return Object.fromEntries(
    backends.map(({ name }) => {
      const s = samples.get(name)!;
      const figures = rateFigures(s.loaded, s.small);
      return [name, { ...figures, loads: loads.get(name)!, samples: s, synRetransmits: retransmits.get(name)! }];
    }),
  );
}

function report(ctx: SuiteContext, prefix: string, f: Rates): void {
  const row = (metric: string, s: { n: number; p50: number; p99: number }, unit: string) =>
    ctx.report({ scenario: ctx.scenario, metric, value: s.p50, unit, n: s.n, p50: s.p50, p99: s.p99 });
  row(`${prefix}.loaded`, f.loaded, 'conn/s');
  row(`${prefix}.small`, f.small, 'conn/s');
  row(`${prefix}.loaded.vs.small`, f.pairRatios, 'x');
  ctx.reportValue(`${prefix}.loaded.vs.small.ratio-of-medians`, f.ratioOfMedians, 'x');
  if (f.perCpu) {
    row(`${prefix}.loaded.per-cpu-s`, f.perCpu.loaded, 'conn/s');
    row(`${prefix}.small.per-cpu-s`, f.perCpu.small, 'conn/s');
    row(`${prefix}.loaded.vs.small.per-cpu-s`, f.perCpu.pairRatios, 'x');
  }
  row(`${prefix}.load-1m`, summarize(f.loads), 'load');
  row(`${prefix}.syn-retransmits`, summarize(f.synRetransmits), 'count');
}
