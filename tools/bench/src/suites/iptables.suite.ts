import { rm } from 'node:fs/promises';
import { loadavg } from 'node:os';
import type { NodeLocalState, SyncRequest } from '@kpng/core';
import { RecordingLogger } from '@kpng/core/testing';
import { IptablesBackend, type IptablesFlavour } from '@kpng/iptables';
import { processExecer, runChunked, type Execer, type ExecResult } from '@kpng/kit';
import { canCreateNamespaces, sweepLeftovers, type NetworkNamespace } from '@kpng/lab';
import type { EndpointSliceObject } from '../kube/types.js';
import { cpuMs } from '../runner/cpu.js';
import { measurementOf } from '../runner/measure.js';
import { fitPowerLaw, nextSize, predict, sizeAt } from './iptables-curve.js';
import { coreOver, flipFirstEndpoint, inNamespace, timed } from './kernel-helpers.js';
import { defineSuite, type SuiteContext } from './suite.js';

/**
 * The iptables backend on the real iptables, legacy and nft flavours, inside network namespaces
 * this suite creates and deletes (root only). Per flavour (PERFORMANCE.md's targets):
 * - `iptables.<flavour>.full-sync`: first full sync of an instance, state to rules applied;
 *   `…setup`: its `setup()` before (detects the flavour, starts the kernel dump the first sync reads);
 * - `…reference.restore`: `iptables-restore --noflush` of the very input that sync wrote, alone,
 *   into a fresh namespace (runs alternate with the syncs); `…full-sync.vs.restore`: the ratio of
 *   medians (target <= 1.2x);
 * - `…partial-sync.one-endpoint`: one endpoint change from core's model to rules applied, over
 *   `--partials` changes (default 11; target <= 300 ms median at s10k on legacy), alternating with
 *   `…partial-sync.floor`: a one-chain `--noflush` restore into the same namespace, the least any
 *   restore costs there (iptables-legacy replaces the whole table blob on every commit);
 *   `…partial-sync.vs.floor` is their ratio;
 * - `…inside-restore`: the part of a sync spent in iptables-restore processes and the kernel;
 *   `…outside-restore`: the backend's own part, sync minus its restores, paired per sync (the
 *   difference of the two medians mixes runs); `…full-sync.vs.inside`: the median of per-run
 *   sync / its own restores (the reference restore runs in another namespace minutes apart, and at
 *   this machine's load varies by 1.5x either way from one run to the next); a full sync's restore
 *   starts before the backend renders, so its part counts from its input's end;
 *   `…full-sync.vs.restore.paired`: the median of per-run sync / the reference restore run right after it;
 *   `…full-sync.cpu`, `…reference.restore.cpu`: CPU time of this process and the processes it started
 *   (ms), and `…full-sync.cpu.vs.restore` their ratio: the same comparison, barely moved by load;
 *   `….cpu.own` / `….cpu.children` split each into this process's CPU and its reaped processes';
 * - `…load1.start` / `.end`: the machine's 1-minute load average around the flavour's figures.
 * iptables-nft above `--nft-max-services` (default 1000: a kube-proxy-shaped 10k restore did not
 * finish in 45 minutes) measures the growth curve instead: full syncs of the first N Services for
 * N in `--nft-curve` (default 250,500,1000,2000; medians of `--runs`) while the fitted power law predicts N within
 * `--nft-budget-s` (default 120 s), then `iptables.nft.full-sync.extrapolated` at the scenario's
 * size and `iptables.nft.usable-services` (where a restore reaches `--nft-usable-s`, default 10 s).
 * Options: `--flavours=legacy,nft` (default both), `--partials=N`.
 */
export default defineSuite({
  name: 'iptables',
  description:
    'iptables backend: full sync vs iptables-restore of the same input, partial sync vs the restore floor, legacy and nft flavours',
  scenarios: ['s1k', 's10k'],
  async run(ctx) {
    const capability = await canCreateNamespaces();
    if (!capability.ok) throw new Error(`the iptables suite needs to create network namespaces: ${capability.reason}`);
    await sweepLeftovers();
    const objects = ctx.objects();
    const core = coreOver(objects);
    const flavours = String(ctx.options['flavours'] ?? 'legacy,nft').split(',') as IptablesFlavour[];
    const nftMax = Number(ctx.options['nft-max-services'] ?? 1000);
    ctx.log(
      `iptables: ${core.first.state.services.length} services on ${objects.benchNode}, flavours ${flavours.join(', ')}`,
    );
    // One list of slices across flavours: each change flips the current state of a slice.
    const slices = objects.endpointSlices.filter((s) => s.endpoints.length > 0);
    try {
      for (const flavour of flavours) {
        ctx.reportValue(`iptables.${flavour}.load1.start`, loadavg()[0] ?? 0, 'load');
        if (flavour === 'nft' && core.first.state.services.length > nftMax) await nftCurve(ctx, core.first.state);
        else await flavourFigures(ctx, flavour, core, slices);
        ctx.reportValue(`iptables.${flavour}.load1.end`, loadavg()[0] ?? 0, 'load');
      }
    } finally {
      await rm(BENCH_XTABLES_LOCK, { force: true });
    }
  },
});

const FLOOR_INPUT = '*nat\n:KUBE-BENCH-FLOOR - [0:0]\n-A KUBE-BENCH-FLOOR -j RETURN\nCOMMIT\n';

/**
 * iptables-legacy serialises every process on the host through /run/xtables.lock, also in other
 * namespaces: an s10k restore holds it for many seconds, and other programs' `iptables -w 5` fail
 * meanwhile (other engineers' e2e tests on this shared machine). The bench's namespaces are its own,
 * so its processes take a lock of their own (iptables reads XTABLES_LOCKFILE), removed at the end.
 */
const BENCH_XTABLES_LOCK = `/tmp/kpng-bench-${process.pid}-xtables.lock`;

function withOwnLock(argv: readonly string[]): readonly string[] {
  if (argv[0] !== 'nsenter') return argv;
  return [...argv.slice(0, 2), 'env', `XTABLES_LOCKFILE=${BENCH_XTABLES_LOCK}`, ...argv.slice(2)];
}

/**
 * An execer that records the restore inputs and the time spent in restore processes: from the
 * call to its exit for a restore run whole, and from its input's end to its exit for one started
 * before its input was rendered (the backend's full syncs): the part of the sync that waited for it.
 */
class RestoreRecorder implements Execer {
  inputs: { argv: readonly string[]; stdin: string }[] = [];
  recording = true;
  restoreMs = 0;
  async run(original: readonly string[], stdin: string, signal?: AbortSignal): ReturnType<Execer['run']> {
    const argv = withOwnLock(original);
    if (!isRestore(argv)) return processExecer.run(argv, stdin, signal);
    if (this.recording) this.inputs.push({ argv, stdin });
    const start = performance.now();
    const result = await processExecer.run(argv, stdin, signal);
    this.restoreMs += performance.now() - start;
    return result;
  }

  async runStream(
    original: readonly string[],
    stdin: AsyncIterable<string>,
    signal?: AbortSignal,
  ): Promise<ExecResult> {
    const argv = withOwnLock(original);
    if (!isRestore(argv)) return runChunked(processExecer, argv, stdin, signal);
    const chunks: string[] = [];
    let inputEnd: number | undefined;
    async function* recorded(): AsyncGenerator<string> {
      for await (const chunk of stdin) {
        chunks.push(chunk);
        yield chunk;
      }
      inputEnd = performance.now();
    }
    try {
      return await runChunked(processExecer, argv, recorded(), signal);
    } finally {
      if (inputEnd !== undefined) {
        this.restoreMs += performance.now() - inputEnd;
        // Joined when read, after the sync (3 MB at s1k): not inside the timed window.
        let joined: string | undefined;
        if (this.recording)
          this.inputs.push({
            argv,
            get stdin() {
              return (joined ??= chunks.join(''));
            },
          });
      }
    }
  }
}

const isRestore = (argv: readonly string[]): boolean => argv.some((a) => a.endsWith('-restore'));

async function withCpu(fn: () => Promise<unknown>): Promise<{ ms: number; cpu: number; own: number }> {
  const before = await cpuMs();
  const ms = await timed(fn);
  const after = await cpuMs();
  const own = after.own - before.own;
  return { ms, cpu: own + after.children - before.children, own };
}

function fullRequest(state: NodeLocalState): SyncRequest {
  return { state, changes: { triggerTimes: new Map(), nodeChanged: true }, full: true, revision: 1 };
}

/** One fresh backend's first full sync in `ns`. */
async function firstFullSync(
  ns: NetworkNamespace,
  flavour: IptablesFlavour,
  state: NodeLocalState,
): Promise<{
  backend: IptablesBackend;
  ms: number;
  cpu: number;
  own: number;
  setupMs: number;
  recorder: RestoreRecorder;
}> {
  const recorder = new RestoreRecorder();
  const backend = new IptablesBackend({
    flavour,
    netns: ns.name,
    execer: recorder,
    conntrack: false,
    log: new RecordingLogger(),
  });
  // setup() starts the kernel dump the first sync uses (the program runs it while the API server lists).
  const setupMs = await timed(() => backend.setup());
  const { ms, cpu, own } = await withCpu(() => backend.sync(fullRequest(state)));
  recorder.recording = false;
  return { backend, ms, cpu, own, setupMs, recorder };
}

/** The recorded restores, alone, into a fresh namespace, spawned exactly as the backend spawned them. */
async function referenceRestore(
  ctx: SuiteContext,
  name: string,
  recorded: { readonly netns: string; readonly inputs: RestoreRecorder['inputs'] },
): Promise<{ ms: number; cpu: number; own: number }> {
  let measured = { ms: 0, cpu: 0, own: 0 };
  await inNamespace(ctx, name, async (ns) => {
    const argvIn = (argv: readonly string[]): string[] =>
      argv.map((arg) => (arg === `--net=/run/netns/${recorded.netns}` ? `--net=/run/netns/${ns.name}` : arg));
    measured = await withCpu(async () => {
      for (const input of recorded.inputs) {
        const result = await processExecer.run(argvIn(input.argv), input.stdin);
        if (result.exitCode !== 0) throw new Error(`reference restore failed: ${result.stderr}`);
      }
    });
  });
  return measured;
}

async function flavourFigures(
  ctx: SuiteContext,
  flavour: IptablesFlavour,
  core: ReturnType<typeof coreOver>,
  slices: EndpointSliceObject[],
): Promise<void> {
  const partialCount = Number(ctx.options['partials'] ?? 11);
  const totals: number[] = [];
  const setups: number[] = [];
  const syncCpu: number[] = [];
  const syncOwn: number[] = [];
  const referenceCpu: number[] = [];
  const referenceOwn: number[] = [];
  const inside: number[] = [];
  const reference: number[] = [];
  const partials: number[] = [];
  const partialsInside: number[] = [];
  const floor: number[] = [];
  let lines = 0;
  for (let run = 0; run < ctx.runs && !ctx.signal.aborted; run++) {
    let recorded = { netns: '', inputs: [] as RestoreRecorder['inputs'] };
    await inNamespace(ctx, `ipt-bench-${flavour}-${run}`, async (ns) => {
      const { backend, ms, cpu, own, setupMs, recorder } = await firstFullSync(ns, flavour, core.first.state);
      totals.push(ms);
      syncCpu.push(cpu);
      syncOwn.push(own);
      setups.push(setupMs);
      inside.push(recorder.restoreMs);
      const inputs = recorder.inputs;
      recorded = { netns: ns.name, inputs };
      lines = inputs.reduce((n, i) => n + i.stdin.split('\n').length, 0);
      if (run > 0) return;
      const restoreTool = inputs[0]?.argv ?? [];
      for (let i = 0; i < partialCount && !ctx.signal.aborted; i++) {
        const index = (i * 7919) % slices.length;
        const slice = flipFirstEndpoint(slices[index] as EndpointSliceObject);
        slices[index] = slice;
        recorder.restoreMs = 0;
        partials.push(
          await timed(async () => {
            const current = core.change(slice);
            await backend.sync({
              state: current.state,
              changes: current.changes,
              full: false,
              revision: current.revision,
            });
          }),
        );
        partialsInside.push(recorder.restoreMs);
        // A/B in the same window: the least a restore into this namespace costs, same spawn path.
        floor.push(await timed(() => processExecer.run(restoreTool, FLOOR_INPUT)));
      }
    });
    const ref = await referenceRestore(ctx, `ipt-ref-${flavour}-${run}`, recorded);
    reference.push(ref.ms);
    referenceCpu.push(ref.cpu);
    referenceOwn.push(ref.own);
  }
  const prefix = `iptables.${flavour}`;
  const fullSync = measurementOf(`${prefix}.full-sync`, totals);
  const ref = measurementOf(`${prefix}.reference.restore`, reference);
  ctx.reportMeasurement(`${prefix}.full-sync`, fullSync);
  ctx.reportMeasurement(`${prefix}.setup`, measurementOf('setup', setups));
  ctx.reportMeasurement(`${prefix}.reference.restore`, ref);
  ctx.reportMeasurement(`${prefix}.full-sync.inside-restore`, measurementOf('inside', inside));
  ctx.reportMeasurement(`${prefix}.full-sync.outside-restore`, measurementOf('outside', paired(totals, inside, minus)));
  reportRatio(ctx, `${prefix}.full-sync.vs.inside`, measurementOf('ratio', paired(totals, inside, over), 'x').p50);
  ctx.reportValue(`${prefix}.full-sync.lines`, lines, 'count');
  reportRatio(ctx, `${prefix}.full-sync.vs.restore`, fullSync.p50 / ref.p50);
  const cpu = measurementOf('cpu', syncCpu);
  const refCpu = measurementOf('cpu', referenceCpu);
  ctx.reportMeasurement(`${prefix}.full-sync.cpu`, cpu);
  ctx.reportMeasurement(`${prefix}.reference.restore.cpu`, refCpu);
  // This process's share (every thread: rendering, JIT compilation, GC, process starts, pipes); the
  // rest is the processes it reaped (the restores; for a sync also setup's dumps, reaped during it).
  ctx.reportMeasurement(`${prefix}.full-sync.cpu.own`, measurementOf('cpu', syncOwn));
  ctx.reportMeasurement(`${prefix}.reference.restore.cpu.own`, measurementOf('cpu', referenceOwn));
  const children = paired(syncCpu, syncOwn, minus);
  const referenceChildren = paired(referenceCpu, referenceOwn, minus);
  ctx.reportMeasurement(`${prefix}.full-sync.cpu.children`, measurementOf('cpu', children));
  ctx.reportMeasurement(`${prefix}.reference.restore.cpu.children`, measurementOf('cpu', referenceChildren));
  // Run by run: a fresh backend each, in one process, so the first runs are V8's cold ones.
  const list = (values: readonly number[]): string => values.map((v) => v.toFixed(0)).join(', ');
  ctx.log(`iptables ${flavour}: full sync CPU per run (ms), this process: ${list(syncOwn)}; reaped: ${list(children)}`);
  ctx.log(
    `iptables ${flavour}: reference CPU per run (ms), this process: ${list(referenceOwn)}; reaped: ${list(referenceChildren)}`,
  );
  reportRatio(ctx, `${prefix}.full-sync.cpu.vs.restore`, cpu.p50 / refCpu.p50);
  // Each sync over the reference restore run right after it: the load drifts less within a pair.
  reportRatio(
    ctx,
    `${prefix}.full-sync.vs.restore.paired`,
    measurementOf('ratio', paired(totals, reference, over), 'x').p50,
  );
  if (partials.length === 0) return;
  const partial = measurementOf('partial', partials);
  const floorM = measurementOf('floor', floor);
  ctx.reportMeasurement(`${prefix}.partial-sync.one-endpoint`, partial);
  ctx.reportMeasurement(`${prefix}.partial-sync.inside-restore`, measurementOf('inside', partialsInside));
  ctx.reportMeasurement(
    `${prefix}.partial-sync.outside-restore`,
    measurementOf('outside', paired(partials, partialsInside, minus)),
  );
  reportRatio(
    ctx,
    `${prefix}.partial-sync.vs.inside`,
    measurementOf('ratio', paired(partials, partialsInside, over), 'x').p50,
  );
  ctx.reportMeasurement(`${prefix}.partial-sync.floor`, floorM);
  reportRatio(ctx, `${prefix}.partial-sync.vs.floor`, partial.p50 / floorM.p50);
}

const minus = (a: number, b: number): number => a - b;
const over = (a: number, b: number): number => a / b;

/** `f(a[i], b[i])` for each sync `i` (both lists are per sync, in order). */
function paired(a: readonly number[], b: readonly number[], f: (x: number, y: number) => number): number[] {
  return a.map((x, i) => f(x, b[i] ?? Number.NaN));
}

function reportRatio(ctx: SuiteContext, metric: string, ratio: number): void {
  ctx.report({ scenario: ctx.scenario, metric, value: ratio, unit: 'x', n: 1, p50: ratio, p99: ratio });
}

/** iptables-nft's growth curve over the first N Services, and the extrapolation to all of them. */
async function nftCurve(ctx: SuiteContext, state: NodeLocalState): Promise<void> {
  const sizes = String(ctx.options['nft-curve'] ?? '250,500,1000,2000')
    .split(',')
    .map(Number)
    .filter((n) => n > 0 && n < state.services.length);
  const budgetMs = Number(ctx.options['nft-budget-s'] ?? 120) * 1000;
  const usableMs = Number(ctx.options['nft-usable-s'] ?? 10) * 1000;
  const measured: { n: number; ms: number; natRules: number }[] = [];
  for (let n = nextSize(sizes, measured, budgetMs); n !== undefined && !ctx.signal.aborted;) {
    const part: NodeLocalState = { ...state, services: state.services.slice(0, n) };
    const syncs: number[] = [];
    const refs: number[] = [];
    let natRules = 0;
    // Runs alternate sync and reference (each in a fresh namespace), so load drift hits both alike.
    for (let run = 0; run < ctx.runs && !ctx.signal.aborted; run++) {
      let recorded = { netns: '', inputs: [] as RestoreRecorder['inputs'] };
      await inNamespace(ctx, `ipt-curve-${n}-${run}`, async (ns) => {
        const result = await firstFullSync(ns, 'nft', part);
        syncs.push(result.ms);
        recorded = { netns: ns.name, inputs: result.recorder.inputs };
      });
      natRules = natRuleCount(recorded.inputs[0]?.stdin ?? '');
      refs.push((await referenceRestore(ctx, `ipt-curve-ref-${n}-${run}`, recorded)).ms);
    }
    const sync = measurementOf('sync', syncs);
    const ref = measurementOf('restore', refs);
    measured.push({ n, ms: ref.p50, natRules });
    ctx.reportMeasurement(`iptables.nft.curve.${n}.full-sync`, sync);
    ctx.reportMeasurement(`iptables.nft.curve.${n}.reference.restore`, ref);
    reportRatio(ctx, `iptables.nft.curve.${n}.full-sync.vs.restore`, sync.p50 / ref.p50);
    ctx.reportValue(`iptables.nft.curve.${n}.nat-rules`, natRules, 'count');
    ctx.reportValue(`iptables.nft.curve.${n}.load1`, loadavg()[0] ?? 0, 'load');
    ctx.log(
      `iptables-nft: ${n} services (${natRules} nat rules): sync ${sync.p50.toFixed(0)} ms, restore ${ref.p50.toFixed(0)} ms (medians of ${refs.length})`,
    );
    n = nextSize(sizes, measured, budgetMs);
  }
  if (measured.length < 2) return;
  const law = fitPowerLaw(measured);
  const total = state.services.length;
  ctx.reportValue('iptables.nft.curve.exponent', law.b, 'power');
  ctx.reportValue('iptables.nft.full-sync.extrapolated', predict(law, total), 'ms');
  ctx.reportValue('iptables.nft.usable-services', sizeAt(law, usableMs), 'count');
  const rulesPerService = measured.reduce((s, p) => s + p.natRules / p.n, 0) / measured.length;
  ctx.reportValue('iptables.nft.usable-rules', sizeAt(law, usableMs) * rulesPerService, 'count');
}

/** `-A` lines of the `*nat` section of a restore input (what the start-up warning counts). */
function natRuleCount(input: string): number {
  const start = input.indexOf('*nat\n');
  if (start < 0) return 0;
  const end = input.indexOf('\nCOMMIT\n', start);
  return (input.slice(start, end < 0 ? undefined : end).match(/^-A /gm) ?? []).length;
}
