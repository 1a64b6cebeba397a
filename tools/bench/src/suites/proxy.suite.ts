import { existsSync, mkdirSync, rmdirSync } from 'node:fs';
import { rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readCgroupV2Mounts } from '@kpng/ebpf';
import { FakeApiServer, kubeconfigYaml } from '@kpng/lab';
import { SERVICE_NAME_LABEL, type EndpointSliceObject } from '../kube/types.js';
import { freePort } from '../proxy/free-port.js';
import { HealthPoll } from '../proxy/health-poll.js';
import {
  METRIC_PREFIX,
  namespaceRefusal,
  parseProgram,
  programLaunch,
  SYNC_MSG,
  type ProgramName,
} from '../proxy/program.js';
import { ProxyProcess, type LogLine } from '../proxy/proxy-process.js';
import { summarize } from '../runner/stats.js';
import { flipFirstEndpoint } from '../scenarios/model-events.js';
import type { Scenario } from '../scenarios/scenario.js';
import { compiledKpngEbpf, compiledKpngNft, compiledKubeProxy, inNamespace, requireNamespaces } from './namespaces.js';
import { defineSuite, type SuiteContext } from './suite.js';

/**
 * The whole program, as an operator runs it: `kpng-nft` (compiled, in a child process) lists and
 * watches the lab's fake API server (in this process) loaded with the scenario, and
 * programs a network namespace this suite creates. Figures, per run (medians over `--runs`):
 * - `proxy.start-to-programmed`: spawn to the first full sync logged (every Service programmed);
 *   reference: `proxy.start-to-programmed.no-services`, the same program over the nodes alone,
 *   in the same run (start-up, connection, one empty sync), and their ratio; `.cpu`: the program's CPU
 *   time (user + system) until then, which a busy machine barely moves;
 * - `proxy.startup.event-loop-max`: the longest event-loop stall from the spawn until the program
 *   logs 'serving' (modules, kubeconfig: nothing listens yet), and `.no-services`;
 * - `proxy.first-sync.event-loop-max`: the longest stall from 'serving' until programmed
 *   (`monitorEventLoopDelay`, target <= 100 ms), and `.p99`;
 * - `proxy.healthz.max` / `proxy.livez.max` / `proxy.metrics.max`: the slowest answer to a poll every
 *   200 ms from a worker thread through the same time, and `.over-1s`, how many took more than 1 s;
 * - `proxy.one-change`: an EndpointSlice written to the API server until the program logs the
 *   partial sync that applied it (`--changes=N`, default 11, one at a time), and its event-loop max;
 *   `.backend`: the backend's part of it (the partial sync's logged `ms`: render, diff, nft);
 * - `proxy.peak-rss` (VmHWM after the changes) and `.no-services`;
 * - `proxy.peak-rss.near-idle`: the same program over the scenario's first 10 Services and their
 *   slices (issue 28's near-idle node), started after the reference in every run, and
 *   `.near-idle.vs.no-services` (the median of the runs' ratios); by default with
 *   `--program=kube-proxy` only (`--near-idle` for the others, `--no-near-idle` to leave it out).
 * The fake API server answers as a real one does: HTTPS with its own CA (in the kubeconfig),
 * `managedFields` on every object, LIST pages, a BOOKMARK a minute; `--plain-http` serves plain
 * HTTP objects without managedFields instead (the figures before this, as a sub-figure).
 * Options: `--changes=N`, `--no-reference`, `--sources=DIR` (run another revision's core and nft:
 * a folder holding `packages/core` and `packages/nft`, e.g. `git archive REV packages | tar -x -C DIR`), `--cpu-prof=DIR` (the program writes a V8 CPU profile
 * of each run there, for `node --cpu-prof`'s usual tools), `--node-args=A,B` (V8/Node flags for the
 * program, e.g. `--node-args=--max-semi-space-size=2`).
 *
 * `--vs-node-args=A,B` measures V8/Node flags against the program's own figures in the same runs:
 * each run also starts the program (over no Services, then over the scenario) with those flags in
 * place of `--node-args`'s, figures `proxy.flags.*` (start to programmed, its CPU, peak RSS, one
 * change, and `.no-services`), and `proxy.flags.<figure>.vs.default`, the median of the runs' ratios
 * to the same figure without them (the reference).
 *
 * `--program=kube-proxy` runs the compat binary instead (`--proxy-mode=nftables`, a kubeconfig for
 * the fake server, `--hostname-override`; `programLaunch` lists every flag and why): the same figures,
 * named `compat.*`, its reference the same binary over no Services. Its start-up cleanup touches the
 * namespace it programs, so it is started only with `KPNG_NETNS` naming a namespace this process
 * created (`namespaceRefusal` refuses anything else, the root namespace first of all).
 * `--min-sync-period=D` (kube-proxy only, default 0s like kpng-nft; upstream's default is 1s).
 *
 * `--program=kpng-ebpf` (issue 29) runs `kpng-ebpf` (its programs attached to a child cgroup of
 * the cgroup v2 root made for each run and removed after it; no process is ever moved into it, so
 * nothing is balanced), figures `proxy-ebpf.*`, and in every run `kpng-nft` on the same objects as
 * the reference: `proxy-ebpf.nft.*` (start to programmed, peak RSS, one change, the first sync's
 * longest event-loop stall) and `proxy-ebpf.peak-rss.vs.nft`,
 * `proxy-ebpf.start-to-programmed.vs.nft` (medians of the runs' ratios).
 */
export default defineSuite({
  name: 'proxy',
  description:
    'kpng-nft (or --program=kube-proxy) against the fake API server: start to programmed, event-loop stalls, health answers, one change, peak RSS',
  scenarios: ['s1k', 's10k', 's10k-wide', 's50k'],
  async run(ctx) {
    await requireNamespaces('proxy');
    const sources = typeof ctx.options['sources'] === 'string' ? ctx.options['sources'] : undefined;
    const program = parseProgram(ctx.options['program']);
    const compiled = { 'kpng-nft': compiledKpngNft, 'kube-proxy': compiledKubeProxy, 'kpng-ebpf': compiledKpngEbpf };
    const caches = { 'kpng-nft': 'proxy-bench', 'kube-proxy': 'compat-bench', 'kpng-ebpf': 'ebpf-proxy-bench' };
    const suffix = sources === undefined ? '' : '-sources';
    const entry = await compiled[program](`${caches[program]}${suffix}`, sources);
    // kpng-ebpf's reference: kpng-nft on the same objects, in every run.
    const nftEntry = program === 'kpng-ebpf' ? await compiledKpngNft(`proxy-bench${suffix}`, sources) : undefined;
    const prefix = METRIC_PREFIX[program];
    const objects = ctx.objects();
    const changes = Number(ctx.options['changes'] ?? 11);
    const nodeArgs = argList(ctx.options['node-args']);
    const nearIdle =
      ctx.options['no-near-idle'] === undefined && (ctx.options['near-idle'] !== undefined || program === 'kube-proxy');
    const vsArgs = typeof ctx.options['vs-node-args'] === 'string' ? argList(ctx.options['vs-node-args']) : undefined;
    const figures = new Map<string, number[]>();
    const add = (name: string, value: number): void => {
      const metric = name.replace(/^proxy\./, `${prefix}.`);
      void (figures.get(metric) ?? figures.set(metric, []).get(metric)!).push(value);
    };
    for (let run = 0; run < ctx.runs && !ctx.signal.aborted; run++) {
      if (ctx.options['no-reference'] === undefined) {
        const empty = await runOnce(
          ctx,
          program,
          entry,
          { ...objects, services: [], endpointSlices: [] },
          0,
          `ref-${run}`,
          nodeArgs,
        );
        add('proxy.start-to-programmed.no-services', empty.startMs);
        add('proxy.start-to-programmed.cpu.no-services', empty.startCpuMs);
        add('proxy.peak-rss.no-services', empty.peakRss);
        add('proxy.startup.event-loop-max.no-services', empty.startupLoopMaxMs);
      }
      if (nearIdle) {
        ctx.log(`proxy: ${program} near idle (${NEAR_IDLE_SERVICES} Services) run ${run + 1}/${ctx.runs}`);
        const idle = await runOnce(ctx, program, entry, nearIdleObjects(objects), 0, `idle-${run}`, nodeArgs);
        add('proxy.peak-rss.near-idle', idle.peakRss);
        add('proxy.start-to-programmed.near-idle', idle.startMs);
        const none = figures.get(`${prefix}.peak-rss.no-services`);
        if (ctx.options['no-reference'] === undefined && none !== undefined)
          add('proxy.peak-rss.near-idle.vs.no-services', idle.peakRss / (none.at(-1) ?? Number.NaN));
      }
      ctx.log(`proxy: ${program} run ${run + 1}/${ctx.runs}`);
      const r = await runOnce(ctx, program, entry, objects, changes, `run-${run}`, nodeArgs);
      add('proxy.start-to-programmed', r.startMs);
      add('proxy.start-to-programmed.cpu', r.startCpuMs);
      add('proxy.startup.event-loop-max', r.startupLoopMaxMs);
      add('proxy.first-sync.event-loop-max', r.firstSyncLoop.maxMs);
      add('proxy.first-sync.event-loop-p99', r.firstSyncLoop.p99Ms);
      for (const a of r.answers) {
        add(`proxy.${a.name}.max`, a.maxMs);
        add(`proxy.${a.name}.over-1s`, a.over1s);
      }
      add('proxy.peak-rss', r.peakRss);
      if (nftEntry !== undefined) {
        ctx.log(`proxy: kpng-nft (the reference) run ${run + 1}/${ctx.runs}`);
        const n = await runOnce(ctx, 'kpng-nft', nftEntry, objects, changes, `nft-${run}`, nodeArgs);
        add('proxy.nft.start-to-programmed', n.startMs);
        add('proxy.nft.peak-rss', n.peakRss);
        add('proxy.nft.first-sync.event-loop-max', n.firstSyncLoop.maxMs);
        for (const ms of n.changeMs) add('proxy.nft.one-change', ms);
        add('proxy.peak-rss.vs.nft', r.peakRss / n.peakRss);
        add('proxy.start-to-programmed.vs.nft', r.startMs / n.startMs);
      }
      if (r.changeLoopMaxMs !== undefined) add('proxy.one-change.event-loop-max', r.changeLoopMaxMs);
      for (const ms of r.changeMs) add('proxy.one-change', ms);
      for (const ms of r.changeBackendMs) add('proxy.one-change.backend', ms);
      if (vsArgs !== undefined) {
        ctx.log(`proxy: ${program} with ${vsArgs.join(' ')} run ${run + 1}/${ctx.runs}`);
        const none = { ...objects, services: [], endpointSlices: [] };
        const fe = await runOnce(ctx, program, entry, none, 0, `flags-ref-${run}`, vsArgs);
        const fr = await runOnce(ctx, program, entry, objects, changes, `flags-${run}`, vsArgs);
        const pairs: [string, number, number | undefined][] = [
          ['start-to-programmed', fr.startMs, r.startMs],
          ['start-to-programmed.cpu', fr.startCpuMs, r.startCpuMs],
          ['peak-rss', fr.peakRss, r.peakRss],
          ['one-change', median(fr.changeMs), median(r.changeMs)],
          [
            'start-to-programmed.cpu.no-services',
            fe.startCpuMs,
            figures.get(`${prefix}.start-to-programmed.cpu.no-services`)?.at(-1),
          ],
          ['peak-rss.no-services', fe.peakRss, figures.get(`${prefix}.peak-rss.no-services`)?.at(-1)],
        ];
        for (const [name, value, reference] of pairs) {
          if (!Number.isFinite(value)) continue; // no changes asked for
          add(`proxy.flags.${name}`, value);
          if (reference !== undefined) add(`proxy.flags.${name}.vs.default`, value / reference);
        }
      }
    }
    for (const [metric, values] of figures) {
      const s = summarize(values);
      const unit = /\.vs\.(nft|default|no-services)$/.test(metric)
        ? 'x'
        : metric.includes('rss')
          ? 'bytes'
          : metric.endsWith('over-1s')
            ? 'count'
            : 'ms';
      ctx.report({ scenario: ctx.scenario, metric, value: s.p50, unit, n: s.n, p50: s.p50, p99: s.p99 });
    }
    const subject = figures.get(`${prefix}.start-to-programmed`);
    const reference = figures.get(`${prefix}.start-to-programmed.no-services`);
    if (subject && reference) {
      const ratios = subject.map((v, i) => v / (reference[i] ?? Number.NaN));
      const s = summarize(ratios);
      ctx.report({
        scenario: ctx.scenario,
        metric: `${prefix}.start-to-programmed.vs.no-services`,
        value: s.p50,
        unit: 'x',
        n: s.n,
        p50: s.p50,
        p99: s.p99,
      });
    }
  },
});

interface RunFigures {
  readonly startMs: number;
  readonly startCpuMs: number;
  readonly startupLoopMaxMs: number;
  readonly firstSyncLoop: { readonly maxMs: number; readonly p99Ms: number };
  readonly answers: readonly { readonly name: string; readonly maxMs: number; readonly over1s: number }[];
  readonly changeMs: readonly number[];
  /** The backend's part of each change (the partial sync's logged `ms`: render, diff and nft). */
  readonly changeBackendMs: readonly number[];
  readonly changeLoopMaxMs?: number;
  readonly peakRss: number;
}

async function runOnce(
  ctx: SuiteContext,
  program: ProgramName,
  entry: string,
  objects: Scenario,
  changes: number,
  tag: string,
  nodeArgs: readonly string[],
): Promise<RunFigures> {
  const server = await FakeApiServer.start(
    ctx.options['plain-http'] === undefined ? { tls: true, managedFields: true, bookmarkEveryMs: 60_000 } : {},
  );
  const kubeconfig = join(tmpdir(), `kpng-proxy-bench-${process.pid}-${tag}.yaml`);
  let figures: RunFigures | undefined;
  try {
    await inNamespace(ctx, `proxy-${tag}`, async (ns) => {
      if (program !== 'kpng-ebpf') {
        figures = await programOnce(ctx, program, entry, objects, changes, server, kubeconfig, ns.name, nodeArgs);
        return;
      }
      const [root] = readCgroupV2Mounts();
      if (root === undefined) throw new Error('--program=kpng-ebpf needs a cgroup v2 mount');
      const cgroup = join(root, `kpng-bench-proxy-${process.pid}-${tag}`);
      mkdirSync(cgroup);
      try {
        figures = await programOnce(
          ctx,
          program,
          entry,
          objects,
          changes,
          server,
          kubeconfig,
          ns.name,
          nodeArgs,
          cgroup,
        );
      } finally {
        rmdirSync(cgroup); // the program has exited: its links (and so its programs) are gone
      }
    });
  } finally {
    await rm(kubeconfig, { force: true });
    await server.close();
  }
  if (figures === undefined) throw new Error('no figures');
  return figures;
}

async function programOnce(
  ctx: SuiteContext,
  programName: ProgramName,
  entry: string,
  objects: Scenario,
  changes: number,
  server: FakeApiServer,
  kubeconfig: string,
  netns: string,
  nodeArgs: readonly string[],
  cgroup?: string,
): Promise<RunFigures> {
  const fullSync = (line: LogLine): boolean => line.msg === SYNC_MSG[programName] && line['full'] === true;
  const partialSync = (line: LogLine): boolean => line.msg === SYNC_MSG[programName] && line['full'] === false;
  for (const obj of [...objects.nodes, ...objects.services, ...objects.endpointSlices]) server.create(obj as never);
  await writeFile(kubeconfig, kubeconfigYaml(server.url, undefined, server.ca));
  const [metricsPort, healthPort] = [await freePort(), await freePort()];
  const poll = new HealthPoll([
    `http://127.0.0.1:${healthPort}/healthz`,
    `http://127.0.0.1:${healthPort}/livez`,
    `http://127.0.0.1:${metricsPort}/metrics`,
  ]);
  const refusal = namespaceRefusal(netns, process.pid, (name) => existsSync(`/run/netns/${name}`));
  if (refusal !== undefined) throw new Error(`refusing to start ${programName}: ${refusal}`);
  const minSyncPeriod = ctx.options['min-sync-period'];
  const launch = programLaunch(programName, {
    kubeconfig,
    nodeName: objects.benchNode,
    netns,
    metricsPort,
    healthPort,
    ...(typeof minSyncPeriod === 'string' ? { minSyncPeriod } : {}),
    ...(cgroup !== undefined ? { cgroup } : {}),
  });
  const program = new ProxyProcess({
    entry,
    args: launch.args,
    env: launch.env,
    signal: ctx.signal,
    nodeArgs: [
      ...(typeof ctx.options['cpu-prof'] === 'string' ? ['--cpu-prof', '--cpu-prof-dir', ctx.options['cpu-prof']] : []),
      ...nodeArgs,
    ],
  });
  try {
    // Start-up (loading modules, the kubeconfig) stalls before anything listens: reported
    // apart, from the spawn to the program's 'serving' line; the first sync's figure starts there.
    const serving = program.waitFor((line) => line.msg === launch.readyMsg);
    const programmedLine = program.waitFor(fullSync);
    await serving;
    const startupLoop = await program.eventLoop();
    const programmed = await programmedLine;
    const startMs = performance.now() - program.startedAt;
    const startCpuMs = await program.cpuMs();
    if (programmed['services'] !== objects.services.length) {
      throw new Error(
        `the first full sync programmed ${String(programmed['services'])} Services, not ${objects.services.length}`,
      );
    }
    const firstSyncLoop = await program.eventLoop();
    ctx.log(`proxy: longest first-sync stalls ${JSON.stringify(firstSyncLoop.stalls)} (ms since the program started)`);
    const answered = await poll.stop();
    const names = ['healthz', 'livez', 'metrics'];
    const answers = answered.map((a, i) => ({ name: names[i] ?? a.url, maxMs: a.maxMs, over1s: a.over1s }));
    const changeMs: number[] = [];
    const changeBackendMs: number[] = [];
    const slices = objects.endpointSlices.filter((s) => s.endpoints.length > 0);
    for (let i = 0; i < changes && !ctx.signal.aborted; i++) {
      const index = (i * 7919) % slices.length;
      const slice = flipFirstEndpoint(slices[index] as EndpointSliceObject);
      slices[index] = slice;
      const applied = program.waitFor(partialSync, 60_000);
      const start = performance.now();
      server.update(slice as never);
      const line = await applied;
      changeMs.push(performance.now() - start);
      if (typeof line['ms'] === 'number') changeBackendMs.push(line['ms']);
    }
    const changeLoop = changes > 0 ? await program.eventLoop() : undefined;
    const peakRss = await program.peakRss();
    return {
      startMs,
      startCpuMs,
      startupLoopMaxMs: startupLoop.maxMs,
      firstSyncLoop,
      answers,
      changeMs,
      changeBackendMs,
      ...(changeLoop ? { changeLoopMaxMs: changeLoop.maxMs } : {}),
      peakRss,
    };
  } finally {
    await poll.stop().catch(() => undefined);
    await program.stop();
  }
}

/** Issue 28's near-idle node: 10 Services. */
const NEAR_IDLE_SERVICES = 10;

/** The scenario's nodes, its first `NEAR_IDLE_SERVICES` Services and their EndpointSlices. */
export function nearIdleObjects(objects: Scenario): Scenario {
  const services = objects.services.slice(0, NEAR_IDLE_SERVICES);
  const names = new Set(services.map((s) => `${s.metadata.namespace ?? ''}/${s.metadata.name}`));
  const endpointSlices = objects.endpointSlices.filter((s) =>
    names.has(`${s.metadata.namespace ?? ''}/${s.metadata.labels?.[SERVICE_NAME_LABEL] ?? ''}`),
  );
  return { ...objects, services, endpointSlices };
}

function argList(option: unknown): string[] {
  return typeof option === 'string' ? option.split(',').filter((a) => a !== '') : [];
}

function median(values: readonly number[]): number {
  return values.length === 0 ? Number.NaN : summarize(values).p50;
}
