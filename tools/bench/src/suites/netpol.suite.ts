import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PolicyView, type NetworkPolicyModel, type PolicyPod } from '@kpng/core/runtime';
import { SILENT_LOGGER } from '@kpng/core/testing';
import { ECHO_PORT, type Lab, type NetworkNamespace } from '@kpng/lab';
import { NetpolEnforcer } from '@kpng/netpol';
import { createNftClient } from '@kpng/nftables';
import { rateFigures, roundOrder, type RateSample } from '../connrate/figures.js';
import { cluster, podObject, policyObject, SHAPE, THIS_NODE, type Cluster } from '../netpol/cluster.js';
import { preciseModeSamples } from '../netpol/precise.js';
import { errorOutsideWindow, PRECISE_INTERVAL_MS } from '../netpol/precise-figures.js';
import { cpuMs } from '../runner/cpu.js';
import { garbageCollector } from '../runner/gc.js';
import { summarize } from '../runner/stats.js';
import { inLab, inNamespace, requireNamespaces } from './namespaces.js';
import { defineSuite, type SuiteContext } from './suite.js';

const CLIENT = fileURLToPath(new URL('../../scripts/conn-rate-client.mjs', import.meta.url));
const SETTLE_MS = 1_000;
/** nft's CPU per transaction: this many blocks of `TX_ROUNDS` one-element adds and deletes. */
const TX_BLOCKS = 3;
const TX_ROUNDS = 50;
const MIB = 1024 * 1024;

/**
 * NetworkPolicy at scale (issue 26): 1,000 policies x 10,000 pods (100 on this node; see
 * `netpol/cluster.ts`), core's policy view and the `@kpng/netpol` enforcer programming a lab
 * namespace with the real nft (transactions through one long-lived `nft -i`, as the enforcer runs
 * them; `--nft-interactive=false`: a fresh `nft -f` per transaction from one long-lived shell), in process (the API watch is not wired
 * yet: "enforced" is from the model change to the nft transaction's end).
 * - `netpol.start-to-enforced`: every object into a fresh view, then the first (full) sync;
 *   `netpol.extra-rss`: the process's RSS growth over that (after a GC), elements programmed;
 * - `netpol.policy-created.enforced` / `netpol.label-change.enforced`: `--samples` (default 50) times,
 *   one policy selecting a local pod created (then deleted), one peer pod's label changed (then
 *   back), each up to the end of its sync; the same on the same 10,000 pods without policies as the
 *   reference (`.reference`), measured in the same run;
 * - `netpol.conn-rate.*`: fresh TCP connections/s from a lab client pod to a lab server pod on this
 *   node, both in the cluster, the server selected by policies (the client allowed by one), with
 *   the 1,000 policies programmed vs none, alternating rounds (`max(--runs, 3)`), as `conn-rate`
 *   (`--skip-conn-rate` leaves it out);
 * - `netpol.changes.in-view`, `.in-render`, `.in-nft`: of every timed change, the part spent in the
 *   policy view, in rendering the enforcer's operations, and in nft's transaction (its text
 *   written, a new group's elements made then, and nft's run);
 * - `netpol.policy-created.in-view`, `.in-render`, `.in-nft`: the same of the created policies only;
 * - `netpol.extra-heap`: of `extra-rss`, the JavaScript heap still in use (after a GC): what the
 *   view and the enforcer hold, apart from memory the process keeps from the first sync's garbage;
 * - `netpol.precise-mode.error`: the test clients' `policy-creation-enforcement-latency` in precise
 *   mode (5 ms probe interval) run as its program in a lab client pod against the enforcer
 *   (`netpol/precise.ts`), `--precise-rounds` (default 5) creations and revocations of an allow
 *   policy x 2 targets: how far each reported instant lies outside the window the commit lies in
 *   (0 inside; target <= 20 ms); its reference, `netpol.precise-mode.window`, is that window (the
 *   sync's start to its end, measured in the same run: how well the truth itself is known), and
 *   `netpol.precise-mode.offset` the reported instant minus the window's end (`--skip-precise`
 *   leaves them out);
 * - `netpol.nft-tx-cpu`: nft's CPU (user + sys, reaped children) for one transaction on the
 *   programmed table, adding or deleting one element of a probe set, run as the enforcer runs it
 *   (an `include` line to one `nft -i`; `--nft-interactive=false`: a fresh `nft -f` each): what the
 *   table's size costs every change, which load barely moves (wall time at load 40 is ~20x it); the
 *   reference's table is near empty.
 */
export default defineSuite({
  name: 'netpol',
  description: 'NetworkPolicy enforcement at 1,000 policies x 10,000 pods: latencies, RSS, new-connection rate vs none',
  scenarios: ['s10k'],
  async run(ctx) {
    await requireNamespaces('netpol');
    await inNamespace(ctx, 'netpol-loaded', (ns) => latencies(ctx, ns, 'loaded'));
    await inNamespace(ctx, 'netpol-reference', (ns) => latencies(ctx, ns, 'reference'));
    if (ctx.options['skip-precise'] !== true)
      await inLab(ctx, ['client', 'target-a', 'target-b'], (lab) => preciseMode(ctx, lab));
    if (ctx.options['skip-conn-rate'] !== true)
      await inLab(ctx, ['client', 'server'], (lab) => connectionRates(ctx, lab));
  },
});

async function preciseMode(ctx: SuiteContext, lab: Lab): Promise<void> {
  const rounds = Number(ctx.options['precise-rounds'] ?? 5);
  const samples = await preciseModeSamples(lab, rounds, ctx.signal, (message) => ctx.log(message));
  if (samples.length === 0) return;
  const row = (metric: string, values: readonly number[]) => {
    const s = summarize(values);
    ctx.report({ scenario: ctx.scenario, metric, value: s.p50, unit: 'ms', n: s.n, p50: s.p50, p99: s.p99 });
  };
  row('netpol.precise-mode.error', samples.map(errorOutsideWindow));
  row(
    'netpol.precise-mode.offset',
    samples.map((s) => s.reportedAt - s.window.confirmedAt),
  );
  row(
    'netpol.precise-mode.window',
    samples.map((s) => s.window.confirmedAt - s.window.sentAt),
  );
  ctx.log(`netpol precise mode: ${samples.length} samples, probe interval ${PRECISE_INTERVAL_MS} ms`);
}

function load(view: PolicyView, objects: Cluster): void {
  objects.namespaces.forEach((ns) => view.setNamespace(ns));
  objects.pods.forEach((pod) => view.setPod(pod));
  objects.policies.forEach((policy) => view.setPolicy(policy));
}

/** The process's RSS and JavaScript heap in use, after a garbage collection. */
function memory(): { readonly rss: number; readonly heap: number } {
  garbageCollector()?.();
  const { rss, heapUsed } = process.memoryUsage();
  return { rss, heap: heapUsed };
}

async function latencies(ctx: SuiteContext, ns: NetworkNamespace, which: 'loaded' | 'reference'): Promise<void> {
  const suffix = which === 'loaded' ? '' : '.reference';
  const objects = cluster(ECHO_PORT, which === 'loaded');
  const before = memory();
  const started = performance.now();
  const view = new PolicyView(THIS_NODE);
  load(view, objects);
  const nft = await createNftClient({ netns: ns.name, ...clientMode(ctx) });
  const enforcer = new NetpolEnforcer({ nft, log: SILENT_LOGGER });
  try {
    const first = await enforcer.sync(view.state().state);
    const startMs = performance.now() - started;
    ctx.reportValue(`netpol.start-to-enforced${suffix}`, startMs, 'ms');
    ctx.reportValue(`netpol.elements${suffix}`, first.added, 'elements');
    if (which === 'loaded') {
      const after = memory();
      ctx.reportValue('netpol.extra-rss', (after.rss - before.rss) / MIB, 'MiB');
      ctx.reportValue('netpol.extra-heap', (after.heap - before.heap) / MIB, 'MiB');
    }
    ctx.log(
      `netpol ${which}: ${objects.policies.length} policies, ${first.added} elements, enforced in ${startMs.toFixed(0)} ms`,
    );

    const samples = Number(ctx.options['samples'] ?? 50);
    const local = objects.pods.filter((pod) => pod.nodeName === THIS_NODE);
    /** The whole change, and its stages: the view, rendering the operations, nft's transaction. */
    const inView: number[] = [];
    const inRender: number[] = [];
    const inNft: number[] = [];
    const createdStages = { view: [] as number[], render: [] as number[], nft: [] as number[] };
    const timed = async (change: () => void, stages?: typeof createdStages): Promise<number> => {
      const t = performance.now();
      change();
      const state = view.state().state;
      const viewMs = performance.now() - t;
      await enforcer.sync(state);
      const { renderMs, writeMs } = enforcer.lastSyncTimings;
      inView.push(viewMs);
      inRender.push(renderMs);
      inNft.push(writeMs);
      stages?.view.push(viewMs);
      stages?.render.push(renderMs);
      stages?.nft.push(writeMs);
      return performance.now() - t;
    };
    const created: number[] = [];
    const labelled: number[] = [];
    for (let s = 0; s < samples && !ctx.signal.aborted; s++) {
      const target = local[s % local.length] as PolicyPod;
      const namespace = Number(target.namespace.slice('ns-'.length));
      const app = Number((target.labels['app'] ?? 'app-0').slice('app-'.length));
      const policy: NetworkPolicyModel = policyObject(namespace, app, ECHO_PORT, `bench-${s}`);
      created.push(await timed(() => view.setPolicy(policy), createdStages));
      await timed(() => view.deletePolicy(`${policy.namespace}/${policy.name}` as never));
      // A peer of the policies selecting `target`: a remote pod of its namespace with the next app.
      const j = ((app + 1) % 10) + 10 * (s % 10);
      const peer = podObject(namespace, j);
      labelled.push(await timed(() => view.setPod(podObject(namespace, j, { labels: { app: 'moved', tier: 't0' } }))));
      await timed(() => view.setPod(peer));
    }
    const row = (metric: string, values: readonly number[]) => {
      const s = summarize(values);
      ctx.report({ scenario: ctx.scenario, metric, value: s.p50, unit: 'ms', n: s.n, p50: s.p50, p99: s.p99 });
    };
    row(`netpol.policy-created.enforced${suffix}`, created);
    row(`netpol.label-change.enforced${suffix}`, labelled);
    row(`netpol.changes.in-view${suffix}`, inView);
    row(`netpol.changes.in-render${suffix}`, inRender);
    row(`netpol.changes.in-nft${suffix}`, inNft);
    row(`netpol.policy-created.in-view${suffix}`, createdStages.view);
    row(`netpol.policy-created.in-render${suffix}`, createdStages.render);
    row(`netpol.policy-created.in-nft${suffix}`, createdStages.nft);
    const cpu: number[] = [];
    for (let b = 0; b < TX_BLOCKS && !ctx.signal.aborted; b++)
      cpu.push(await transactionCpu(ns, clientMode(ctx).interactive));
    row(`netpol.nft-tx-cpu${suffix}`, cpu);
  } finally {
    await enforcer.close();
  }
}

/** How the bench's nft clients run transactions: as the enforcer (`nft -i`), or `--nft-interactive=false`. */
function clientMode(ctx: SuiteContext): { readonly shell: true; readonly interactive: boolean } {
  return { shell: true, interactive: ctx.options['nft-interactive'] !== 'false' };
}

/** nft's CPU, in ms, per one-element transaction on the table in `ns` (see `netpol.nft-tx-cpu`). */
async function transactionCpu(ns: NetworkNamespace, interactive: boolean): Promise<number> {
  const dir = await mkdtemp(join(tmpdir(), 'kpng-netpol-cpu-'));
  try {
    await writeFile(join(dir, 'set.nft'), 'add set inet kpng-netpol cpu-probe { type ipv4_addr; }\n');
    await writeFile(join(dir, 'add.nft'), 'add element inet kpng-netpol cpu-probe { 198.19.0.1 }\n');
    await writeFile(join(dir, 'delete.nft'), 'delete element inet kpng-netpol cpu-probe { 198.19.0.1 }\n');
    await ns.exec(['nft', '-f', join(dir, 'set.nft')]);
    const includes = `include "${dir}/add.nft"\ninclude "${dir}/delete.nft"\n`.repeat(TX_ROUNDS);
    await writeFile(join(dir, 'lines'), includes);
    // nft -i has no exit code per line: any output is an error.
    const loop = interactive
      ? 'out=$(nft -i < "$1/lines" 2>&1); [ -z "$out" ] || { echo "$out" >&2; exit 1; }'
      : `for i in $(seq ${TX_ROUNDS}); do nft -f "$1/add.nft" && nft -f "$1/delete.nft" || exit 1; done`;
    const before = (await cpuMs()).children;
    await ns.exec(['sh', '-c', loop, 'sh', dir], { timeoutMs: 600_000 });
    const cpu = (await cpuMs()).children - before;
    await ns.exec(['nft', 'delete', 'set', 'inet', 'kpng-netpol', 'cpu-probe']);
    return cpu / (2 * TX_ROUNDS);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function connectionRates(ctx: SuiteContext, lab: Lab): Promise<void> {
  const server = lab.pod('server');
  const client = lab.pod('client');
  await lab.startEcho('server', [ECHO_PORT]);
  await client.namespace.sysctl({ 'net.ipv4.ip_local_port_range': '1024 65000', 'net.ipv4.tcp_tw_reuse': 1 });
  // np-0 of ns-0 selects app-0 and allows app-1 of ns-0: the server and the client.
  const labPods = [
    podObject(0, 0, {
      name: 'lab-server',
      node: THIS_NODE,
      ips: [server.ipv4, server.ipv6],
      labels: { app: 'app-0', tier: 't0' },
    }),
    podObject(0, 1, {
      name: 'lab-client',
      node: THIS_NODE,
      ips: [client.ipv4, client.ipv6],
      labels: { app: 'app-1', tier: 't1' },
    }),
  ];
  const states = {} as Record<'loaded' | 'small', ReturnType<PolicyView['state']>['state']>;
  for (const which of ['loaded', 'small'] as const) {
    const view = new PolicyView(THIS_NODE);
    load(view, cluster(ECHO_PORT, which === 'loaded'));
    labPods.forEach((pod) => view.setPod(pod));
    states[which] = view.state().state;
  }
  const nft = await createNftClient({ netns: lab.node.namespace.name, ...clientMode(ctx) });
  const enforcer = new NetpolEnforcer({ nft, log: SILENT_LOGGER });
  const durationMs = Number(ctx.options['duration-ms'] ?? 3000);
  const concurrency = Number(ctx.options['concurrency'] ?? 8);
  const samples: Record<'loaded' | 'small', RateSample[]> = { loaded: [], small: [] };
  const loads: number[] = [];
  try {
    const rounds = Math.max(ctx.runs, 3);
    for (let round = 0; round < rounds && !ctx.signal.aborted; round++) {
      for (const which of roundOrder(round)) {
        await enforcer.sync(states[which]);
        garbageCollector()?.();
        await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
        const { stdout } = await client.namespace.exec(
          [process.execPath, CLIENT, server.ipv4, String(ECHO_PORT), String(durationMs), String(concurrency), 'server'],
          { timeoutMs: durationMs + 60_000 },
        );
        const result = JSON.parse(stdout) as RateSample & { wrong: number; errors: number; lastError?: string };
        if (result.wrong > 0 || result.errors > 0)
          ctx.log(
            `netpol conn-rate: ${which}: ${result.wrong} wrong answers, ${result.errors} errors (${result.lastError})`,
          );
        if (result.connections === 0) throw new Error(`no connection answered: ${stdout}`);
        samples[which].push(result);
        loads.push(loadavg()[0] ?? Number.NaN);
        ctx.log(
          `netpol conn-rate: round ${round + 1}/${rounds} ${which === 'loaded' ? '1,000 policies' : 'none'}: ${Math.round((result.connections * 1000) / result.ms)}/s`,
        );
      }
    }
  } finally {
    await enforcer.close();
  }
  const f = rateFigures(samples.loaded, samples.small);
  const row = (metric: string, s: { n: number; p50: number; p99: number }, unit: string) =>
    ctx.report({ scenario: ctx.scenario, metric, value: s.p50, unit, n: s.n, p50: s.p50, p99: s.p99 });
  row('netpol.conn-rate.policies', f.loaded, 'conn/s');
  row('netpol.conn-rate.none', f.small, 'conn/s');
  row('netpol.conn-rate.policies.vs.none', f.pairRatios, 'x');
  if (f.perCpu) row('netpol.conn-rate.policies.vs.none.per-cpu-s', f.perCpu.pairRatios, 'x');
  row('netpol.conn-rate.load-1m', summarize(loads), 'load');
  ctx.log(
    `netpol: ${SHAPE.namespaces * SHAPE.podsPerNamespace} pods, ${SHAPE.namespaces * SHAPE.policiesPerNamespace} policies`,
  );
}
