import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { EventBatcher, NodeView, convertEndpointSlice, convertService } from '@kpng/core/runtime';
import { nodeName, serviceKey, sliceKey, type ModelEvent, type NodeLocalState } from '@kpng/core';
import { eachLine, spawnChild } from '@kpng/kit';
import { writeScenario } from '../scenarios/write.js';
import { toModelEvents } from '../scenarios/model-events.js';
import { summarize } from '../runner/stats.js';
import { cpuTimeMs } from '../runner/turn-probe.js';
import { AGENT_RESULT_MARKER, type AgentRound } from '../stream/agent-round.js';
import { defineSuite, type SuiteContext } from './suite.js';

/**
 * Worst-case objects (issue 25): one object an API user can write that is as large as the API
 * server lets it be, or larger, through core's conversion, model and node view (the s1k cluster
 * loaded first, the node-view turn budget at its default). The raw objects go through the kube
 * source's `EventBatcher` (conversions a 10 ms budget per turn, each turn's batch one model
 * transaction), as watch events arriving together do. Per case, the longest event-loop stall from
 * the raw objects to the published node-local state (the longer of the longest of core's turns,
 * timed, and `monitorEventLoopDelay`'s maximum, 1 ms resolution), as
 * `worst-case.<case>.event-loop-max`, next to the same for an ordinary Service (2 ports, 10
 * endpoints) measured in the same run (`worst-case.reference.event-loop-max`), and the ratio.
 * Goal: no stall over 100 ms. The backends' render is not in these figures.
 * On a loaded machine a turn's wall time is mostly waiting for a core: the same turns (every
 * batcher turn and node-view slice) are also measured in this process's CPU time
 * (`process.cpuUsage`, every thread, so GC helpers count too): `worst-case.<case>.longest-turn-cpu`,
 * with the reference's and the ratio. The goal itself, per case over every measured round:
 * `worst-case.<case>.turns-over-100ms` (core's turns longer than 100 ms of wall time, which a loaded
 * machine inflates; a round with none counts one when `monitorEventLoopDelay` saw a longer stall) and `worst-case.<case>.turns-over-100ms-cpu` (longer than 100 ms of CPU time):
 * 0 and 0 is the goal met (for `global-agent-first-state` on Node 23.9 and later also
 * `…longest-turn-thread-cpu` and `…turns-over-100ms-thread-cpu`: the agent's event-loop thread's
 * CPU alone, without V8's concurrent GC threads). Beside them, in wall time: `worst-case.<case>.event-loop-p99`
 * (`monitorEventLoopDelay`'s p99 over the case, median of the rounds) and `worst-case.load-1m`
 * (the 1-minute load average at each measured round: median and p99), the load the wall figures
 * ran at.
 *
 * `global-agent-first-state` (any scenario; the goal is for s10k): a global-mode agent's first
 * state, the loaded cluster from a central core's global stream, the core and each round's agent
 * in processes of their own (the built `kpng`; `stream/agent-first-state.ts`; `globalAgentFirstState`),
 * with the agent's reconnections counted. Its turns are not scheduled through a hook (gRPC, the
 * decode, the checks, the model and the node view each yield on their own), so every turn of the
 * agent's process is measured by a `TurnProbe` (a 1 ms timer: CPU time between two of its ticks, an
 * upper bound of the turn between them); the same figures.
 * `--cases=a,b` runs only those cases (and the reference); `--agent-cpu-prof=DIR` has each
 * round's agent write a V8 CPU profile (`--cpu-prof`) into DIR, its five longest turns (start ms,
 * CPU, wall, GC within) logged beside the round to find them there; `--agent-node-args=A,B` gives
 * the agent's process V8/Node flags (e.g. the images' `--max-semi-space-size=16`).
 */
export default defineSuite({
  name: 'worst-case',
  description:
    "event-loop stall of worst-case objects (10k source ranges, 1k ports, 10k endpoints in one slice, a 1k-Service burst) and of a global agent's first state",
  scenarios: ['s1k', 's10k'],
  async run(ctx) {
    const objects = ctx.objects();
    /** The longest of core's turns (batcher turns, node-view slices) since the last reset: wall and CPU ms. */
    const longest = { wallMs: 0, cpuMs: 0, overWall: 0, overCpu: 0 };
    const measured = (fn: () => void): void =>
      void setImmediate(() => {
        const [w0, c0] = [performance.now(), cpuTimeMs()];
        fn();
        const [wall, cpu] = [performance.now() - w0, cpuTimeMs() - c0];
        longest.wallMs = Math.max(longest.wallMs, wall);
        longest.cpuMs = Math.max(longest.cpuMs, cpu);
        if (wall > STALL_GOAL_MS) longest.overWall++;
        if (cpu > STALL_GOAL_MS) longest.overCpu++;
      });
    const core = new NodeView({ nodeName: nodeName(objects.benchNode), schedule: measured });
    const batcher = new EventBatcher((batch) => core.model.apply(batch), { schedule: measured });
    let latest: NodeLocalState | undefined;
    let wake: (() => void) | undefined;
    core.addLocalConsumer({
      publish: (state) => {
        latest = state;
        wake?.();
      },
    });
    core.model.apply(toModelEvents(objects));
    for (const kind of ['Service', 'EndpointSlice', 'Node', 'ServiceCIDR'] as const) core.model.synced(kind);
    await until(() => latest !== undefined);
    /** The Services of the loaded cluster in this node's view (before any case adds to it). */
    const expectedServices = latest!.services.length;
    /** `--cases=a,b`: only those (and the reference, always). */
    const only = typeof ctx.options['cases'] === 'string' ? ctx.options['cases'].split(',') : undefined;
    const selected = (name: string) => name === 'reference' || only === undefined || only.includes(name);

    const cases: Record<string, (round: number) => { raw: unknown[]; expect: string }> = {
      reference: (round) => burst(1, 2, 10, round, 'ref'),
      'source-ranges-10k': (round) => {
        const svc = service(`ranges-${round}`, 0, 1, 'LoadBalancer');
        const ranges: string[] = [];
        for (let i = 0; i < 10_000; i++) ranges.push(`198.18.${i >> 8}.${i & 255}/32`);
        (svc['spec'] as Record<string, unknown>)['loadBalancerSourceRanges'] = ranges;
        return { raw: [svc, slice(`ranges-${round}`, 0, 1, 10)], expect: `wc/ranges-${round}` };
      },
      'ports-1k': (round) => {
        const raw: unknown[] = [service(`ports-${round}`, 1, 1000, 'NodePort')];
        // The API server allows 100 ports per slice: ten slices carry the thousand.
        for (let s = 0; s < 10; s++) raw.push(slice(`ports-${round}`, s, 100, 10, s * 100));
        return { raw, expect: `wc/ports-${round}` };
      },
      'endpoints-10k-one-slice': (round) => ({
        raw: [service(`endpoints-${round}`, 2, 1, 'ClusterIP'), slice(`endpoints-${round}`, 0, 1, 10_000)],
        expect: `wc/endpoints-${round}`,
      }),
      'burst-1k-services': (round) => burst(1000, 1, 10, round, 'burst'),
    };

    const runs = Math.max(ctx.runs, 3);
    const maxima: Record<string, number[]> = {};
    const cpuMaxima: Record<string, number[]> = {};
    /** Per case and round, `monitorEventLoopDelay`'s p99 (wall ms); the 1-minute load average at each round. */
    const delayP99: Record<string, number[]> = {};
    const loads: number[] = [];
    /** Per case, core's turns over the goal in the measured rounds: wall, CPU. */
    const over: Record<string, { wall: number; cpu: number }> = {};
    for (let round = 0; round < runs + 1; round++) {
      for (const [name, make] of Object.entries(cases)) {
        if (!selected(name)) continue;
        const { raw, expect } = make(round);
        ctx.log(`worst-case ${name}, round ${round}`);
        const histogram = monitorEventLoopDelay({ resolution: 1 });
        histogram.enable();
        await new Promise((r) => setImmediate(r));
        longest.wallMs = 0;
        longest.cpuMs = 0;
        longest.overWall = 0;
        longest.overCpu = 0;
        const events: ModelEvent[] = [];
        for (const object of raw)
          batcher.push(() => {
            const event = toEvent(object);
            events.push(event);
            return event;
          });
        await until(() => latest?.services.some((s) => (s.key as string) === expect) ?? false);
        await new Promise((r) => setTimeout(r, 20));
        histogram.disable();
        // Each turn timed directly too: the histogram only sees a stall once its timer fires after it.
        const stallMs = Math.max(longest.wallMs, histogram.max / 1e6);
        if (round > 0) {
          // round 0 warms up
          (maxima[name] ??= []).push(stallMs);
          (cpuMaxima[name] ??= []).push(longest.cpuMs);
          (delayP99[name] ??= []).push(histogram.count > 0 ? histogram.percentile(99) / 1e6 : 0);
          loads.push(loadavg()[0]!);
          const o = (over[name] ??= { wall: 0, cpu: 0 });
          o.wall += longest.overWall + (histogram.max / 1e6 > STALL_GOAL_MS && longest.overWall === 0 ? 1 : 0);
          o.cpu += longest.overCpu;
        }
        // Leave the cluster as it was.
        core.model.apply(events.map((e) => ({ kind: e.kind, op: 'delete', key: e.key }) as ModelEvent));
        await until(() => !(latest?.services.some((s) => (s.key as string) === expect) ?? false));
      }
    }
    if (selected('global-agent-first-state')) {
      // The agent's first state is complete once it holds every Service this node's view holds.
      const rounds = await globalAgentFirstState(ctx, objects.benchNode, expectedServices, runs);
      const name = 'global-agent-first-state';
      maxima[name] = rounds.map((f) => Math.max(f.maxWallMs, f.delayMaxMs));
      cpuMaxima[name] = rounds.map((f) => f.maxCpuMs);
      delayP99[name] = rounds.map((f) => f.delayP99Ms);
      loads.push(...rounds.map((f) => f.load1m));
      over[name] = { wall: rounds.reduce((a, f) => a + f.overWall, 0), cpu: rounds.reduce((a, f) => a + f.overCpu, 0) };
      ctx.reportValue(
        `worst-case.${name}.reconnects`,
        rounds.reduce((a, f) => a + f.reconnects, 0),
        'count',
      );
      // The agent's event-loop thread alone (Node 23.9 and later): other threads' CPU left out.
      const thread = rounds.flatMap((f) => (f.maxThreadCpuMs === undefined ? [] : [f.maxThreadCpuMs]));
      if (thread.length > 0 && thread.length === rounds.length) {
        const t = summarize(thread);
        ctx.report({
          scenario: ctx.scenario,
          metric: `worst-case.${name}.longest-turn-thread-cpu`,
          value: round1(t.p50),
          unit: 'ms',
          n: t.n,
          p50: round1(t.p50),
          p99: round1(t.p99),
        });
        ctx.reportValue(
          `worst-case.${name}.turns-over-100ms-thread-cpu`,
          rounds.reduce((a, f) => a + (f.overThreadCpu ?? 0), 0),
          'count',
        );
      }
    }
    // Per case and figure: the median with its p99, and the ratio to the reference's median.
    for (const [figure, byCase] of [
      ['event-loop-max', maxima],
      ['longest-turn-cpu', cpuMaxima],
      ['event-loop-p99', delayP99],
    ] as const) {
      const reference = summarize(byCase['reference']!).p50;
      for (const [name, values] of Object.entries(byCase)) {
        const s = summarize(values);
        const metric = `worst-case.${name}.${figure}`;
        ctx.report({
          scenario: ctx.scenario,
          metric,
          value: round1(s.p50),
          unit: 'ms',
          n: s.n,
          p50: round1(s.p50),
          p99: round1(s.p99),
        });
        if (name !== 'reference') ctx.reportValue(`${metric}.vs.reference`, round1(s.p50 / reference), 'x');
      }
    }
    // The load the wall figures ran at (a turn's wall time is mostly waiting for a core on a busy machine).
    const load = summarize(loads);
    ctx.report({
      scenario: ctx.scenario,
      metric: 'worst-case.load-1m',
      value: round1(load.p50),
      unit: 'load',
      n: load.n,
      p50: round1(load.p50),
      p99: round1(load.p99),
    });
    for (const [name, o] of Object.entries(over)) {
      ctx.reportValue(`worst-case.${name}.turns-over-100ms`, o.wall, 'count');
      ctx.reportValue(`worst-case.${name}.turns-over-100ms-cpu`, o.cpu, 'count');
    }
    core.close();

    function until(done: () => boolean): Promise<void> {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (done()) return resolve();
          if (ctx.signal.aborted) return reject(new Error('aborted'));
          wake = check;
          setTimeout(check, 50);
        };
        check();
      });
    }
  },
});

/** The goal: no event-loop stall over 100 ms. */
const STALL_GOAL_MS = 100;

function round1(n: number): number {
  return Math.round(n * 10) / 10;
}

function toEvent(raw: unknown): ModelEvent {
  const kind = (raw as { kind: string }).kind;
  if (kind === 'Service') {
    const c = convertService(raw);
    if (!c.ok || !c.value) throw new Error(`worst-case Service refused: ${c.ok ? 'skipped' : c.errors.join('; ')}`);
    return { kind: 'Service', op: 'upsert', key: serviceKey(c.value.namespace, c.value.name), object: c.value };
  }
  const c = convertEndpointSlice(raw);
  if (!c.ok || !c.value.slice) throw new Error(`worst-case slice refused: ${c.ok ? 'skipped' : c.errors.join('; ')}`);
  return {
    kind: 'EndpointSlice',
    op: 'upsert',
    key: sliceKey(c.value.slice.namespace, c.value.slice.name),
    object: c.value.slice,
  };
}

/** A Service in namespace `wc` with ClusterIP 198.19.200.<n> (n distinct per case), `ports` TCP ports. */
function service(name: string, n: number, ports: number, type: string): Record<string, unknown> {
  const spec: Record<string, unknown> = {
    type,
    clusterIP: `198.19.${200 + (n >> 8)}.${n & 255}`,
    ports: Array.from({ length: ports }, (_, i) => ({
      name: `p${i}`,
      protocol: 'TCP',
      port: 1000 + i,
      targetPort: 8000 + i,
      ...(type === 'ClusterIP' ? {} : { nodePort: 0 }),
    })),
  };
  return { apiVersion: 'v1', kind: 'Service', metadata: { name, namespace: 'wc' }, spec };
}

/** `endpoints` ready endpoints in 198.18.0.0/16 for `ports` ports from `firstPort` on. */
function slice(serviceName: string, index: number, ports: number, endpoints: number, firstPort = 0): unknown {
  return {
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: {
      name: `${serviceName}-${index}`,
      namespace: 'wc',
      labels: { 'kubernetes.io/service-name': serviceName },
    },
    addressType: 'IPv4',
    ports: Array.from({ length: ports }, (_, i) => ({
      name: `p${firstPort + i}`,
      protocol: 'TCP',
      port: 8000 + firstPort + i,
    })),
    endpoints: Array.from({ length: endpoints }, (_, i) => ({
      addresses: [`198.18.${100 + (i >> 8)}.${i & 255}`],
      conditions: { ready: true },
      nodeName: `node-${String(i % 100).padStart(3, '0')}`,
    })),
  };
}

/** `count` Services of `ports` ports with `endpoints` endpoints each. */
function burst(count: number, ports: number, endpoints: number, round: number, prefix: string) {
  const raw: unknown[] = [];
  for (let i = 0; i < count; i++) {
    const name = `${prefix}-${round}-${i}`;
    raw.push(service(name, 10 + i, ports, 'ClusterIP'), slice(name, 0, ports, endpoints));
  }
  return { raw, expect: `wc/${prefix}-${round}-${count - 1}` };
}

/**
 * A global-mode agent's first state (`--api`): a central core in its own process (`kpng --file
 * <the scenario> --global-listen unix://...`, the built `@kpng/core` program, no node-local stream,
 * no servers), and per round a fresh agent in a process of its own (`stream/agent-first-state.ts`:
 * an `ApiSource` feeding a fresh `NodeView`, as on a node) from connecting to its first node-local
 * state with every Service of the scenario: the state's receipt, decode, checks, model
 * transaction(s) and first node view, every turn of that process measured by a `TurnProbe`. Neither
 * the core's encoding and serving nor this bench process's heap (the scenario's objects, the other
 * cases' core) are in these figures, as on a node. The agent's reconnections (the stream lost
 * before its first state) are counted per round. Round 0 warms up (and makes the core encode every
 * object once). `--agent-cpu-prof=DIR`: each agent writes a V8 CPU profile into DIR;
 * `--agent-node-args=A,B`: V8/Node flags for the agent (e.g. the images' `--max-semi-space-size=16`).
 */
async function globalAgentFirstState(
  ctx: SuiteContext,
  node: string,
  expectedServices: number,
  runs: number,
): Promise<AgentRound[]> {
  const dir = await mkdtemp(join(tmpdir(), 'kpng-worst-case-'));
  const file = join(dir, 'cluster.json');
  await writeScenario(ctx.objects(), file);
  const address = `unix://${join(dir, 'global.sock')}`;
  const core = await startCentralCore(file, address, node, ctx.signal);
  const profileDir = typeof ctx.options['agent-cpu-prof'] === 'string' ? ctx.options['agent-cpu-prof'] : undefined;
  const nodeArgs = [
    ...(typeof ctx.options['agent-node-args'] === 'string'
      ? ctx.options['agent-node-args'].split(',').filter((a) => a !== '')
      : []),
    ...(profileDir !== undefined ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : []),
  ];
  const rounds: AgentRound[] = [];
  try {
    for (let round = 0; round < runs + 1 && !ctx.signal.aborted; round++) {
      ctx.log(`worst-case global-agent-first-state, round ${round}`);
      const figures = await runAgent(address, node, expectedServices, nodeArgs, ctx.signal);
      if (core.exitCode !== undefined) throw new Error(`the central core exited (${core.exitCode}):\n${core.tail()}`);
      ctx.log(
        `  ${figures.services} Services in ${figures.firstStateMs.toFixed(0)} ms: longest turn ${figures.maxCpuMs.toFixed(1)} ms CPU, ` +
          `${figures.maxWallMs.toFixed(1)} ms wall` +
          (figures.maxThreadCpuMs !== undefined
            ? `, ${figures.maxThreadCpuMs.toFixed(1)} ms of its thread's CPU`
            : '') +
          `; event-loop delay max ${figures.delayMaxMs.toFixed(1)} ms, ` +
          `p99 ${figures.delayP99Ms.toFixed(1)} ms; GC pause max ${figures.gcPauseMaxMs.toFixed(1)} ms; ` +
          `${figures.overCpu} turns over ${STALL_GOAL_MS} ms CPU; ${figures.reconnects} reconnections; ` +
          `load ${figures.load1m.toFixed(1)}; longest (probe start ${figures.probeStartUs} µs): ${JSON.stringify(figures.longest)}`,
      );
      if (round > 0) rounds.push(figures);
    }
  } finally {
    await core.stop();
    await rm(dir, { recursive: true, force: true });
  }
  return rounds;
}

/** The TypeScript hooks `npm run bench` runs with, for a child running the bench's sources. */
const REGISTER_TS = fileURLToPath(new URL('../../scripts/register-ts.mjs', import.meta.url));
const AGENT = fileURLToPath(new URL('../stream/agent-first-state.ts', import.meta.url));

/** One agent in its own process (`agent-first-state.ts`) until its first state: its figures. */
async function runAgent(
  address: string,
  node: string,
  expectedServices: number,
  nodeArgs: readonly string[],
  signal: AbortSignal,
): Promise<AgentRound> {
  let out = '';
  const err: string[] = [];
  const child = spawnChild(
    [process.execPath, ...nodeArgs, '--import', REGISTER_TS, AGENT, address, node, String(expectedServices)],
    {
      onStdout: (chunk: Buffer) => void (out += chunk.toString()),
      onStderr: eachLine((line) => {
        err.push(line);
        if (err.length > 20) err.shift();
      }),
    },
  );
  const onAbort = () => child.kill('SIGTERM');
  signal.addEventListener('abort', onAbort, { once: true });
  const exit = await child.exited;
  signal.removeEventListener('abort', onAbort);
  const line = out.split('\n').find((l) => l.startsWith(AGENT_RESULT_MARKER));
  if (exit.exitCode !== 0 || line === undefined)
    throw new Error(`the agent failed (exit ${String(exit.exitCode)}):\n${err.join('\n')}`);
  return JSON.parse(line.slice(AGENT_RESULT_MARKER.length)) as AgentRound;
}

/** The built kpng program of the workspace's @kpng/core. */
function kpngEntry(): string {
  return fileURLToPath(new URL('dist/cli/main.js', import.meta.resolve('@kpng/core/package.json')));
}

interface CentralCore {
  /** Set once the child exited. */
  readonly exitCode: number | null | undefined;
  tail(): string;
  stop(): Promise<void>;
}

/**
 * `kpng --file FILE --global-listen ADDRESS` in a child process; resolves once it has read the
 * manifests (the global stream then serves them whole).
 */
async function startCentralCore(
  file: string,
  address: string,
  node: string,
  signal: AbortSignal,
): Promise<CentralCore> {
  const lines: string[] = [];
  let settle: (outcome: Error | undefined) => void = () => undefined;
  const ready = new Promise<Error | undefined>((resolve) => (settle = resolve));
  const child = spawnChild(
    [
      process.execPath,
      kpngEntry(),
      '--file',
      file,
      '--node-name',
      node,
      '--global-listen',
      address,
      '--listen',
      'none',
      '--metrics-bind-address',
      'none',
      '--healthz-bind-address',
      'none',
      '--logging-format=json',
    ],
    {
      onStderr: eachLine((line) => {
        lines.push(line);
        if (lines.length > 20) lines.shift();
        if (line.includes('"msg":"manifests read"')) settle(undefined);
      }),
    },
  );
  let exitCode: number | null | undefined;
  void child.exited.then((exit) => {
    exitCode = exit.exitCode;
    settle(new Error(`the central core exited (${String(exit.exitCode)}) before reading its manifests`));
  });
  const stop = async () => {
    child.kill('SIGTERM');
    await child.exited;
  };
  signal.addEventListener('abort', () => void stop(), { once: true });
  const failed = await ready;
  if (failed) {
    await stop();
    throw new Error(`${failed.message}:\n${lines.join('\n')}`);
  }
  return {
    get exitCode() {
      return exitCode;
    },
    tail: () => lines.join('\n'),
    stop,
  };
}
