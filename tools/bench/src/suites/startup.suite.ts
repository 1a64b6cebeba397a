import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { processExecer, processExecerWith, runChecked, runSyncChecked } from '@kpng/kit';
import { FakeApiServer, kubeconfigYaml } from '@kpng/lab';
import { freePort } from '../proxy/free-port.js';
import { namespaceRefusal, programLaunch } from '../proxy/program.js';
import { ProxyProcess } from '../proxy/proxy-process.js';
import { cpuMs } from '../runner/cpu.js';
import { summarize } from '../runner/stats.js';
import { compiledKubeProxy, inNamespace, requireNamespaces } from './namespaces.js';
import { defineSuite, type SuiteContext } from './suite.js';

const RSS_PARTS = fileURLToPath(new URL('../../scripts/rss-parts.mjs', import.meta.url));
const FLOOR = fileURLToPath(new URL('../../scripts/startup-floor.mjs', import.meta.url));

/**
 * The compat `kube-proxy` before it does anything: `kube-proxy --version` and `--help`, compiled,
 * each a fresh process on this bench's `node`, against a bare `node -e 0` in alternating runs (the
 * reference: what any Node program costs to start on this machine now): wall time, then in runs of
 * their own CPU time (`.cpu`, `.node.cpu`, `.cpu.vs.node`; reaped children's, 10 ms ticks), which a
 * busy machine barely moves. `--sources=DIR` (a
 * folder holding another revision's `packages/`, e.g. `git archive REV packages | tar -x -C DIR`)
 * adds the same rows for that revision, `startup.sources.*`, for a before/after in one run.
 *
 * `startup.informers`: the spawn of `kube-proxy --proxy-mode=nftables` (the proxy suite's launch,
 * `KPNG_NETNS` a namespace this suite creates) until it logs 'starting informers' (modules loaded,
 * configuration read, the mode's set-up and other modes' leftovers cleaned: what gates the first
 * LIST), against a bare `node -e 0` spawned and awaited in the same runs, and their ratio; `.cpu`
 * the program's CPU time when it logs the line (/proc/PID/stat, 10 ms ticks) against the bare
 * node's (a reaped child's), which load barely moves. The fake API server (HTTPS with its own CA,
 * managedFields) holds the scenario's nodes only. `startup.informers.load-1m`: the 1-minute load average at
 * each run.
 *
 * `startup.floor.{kubeconfig,modules}`: what no change to kpng's own start can remove, each a fresh
 * process against `node -e 0` in alternating runs, wall and CPU (`scripts/startup-floor.mjs`):
 * loading client-node's KubeConfig as core does (the API client's auth and TLS), and loading every
 * module nftables mode loads before its informers start without running any of it;
 * `startup.floor.modules.bundled` the same modules as one rolldown bundle (`bundleFloor`): what
 * loading them costs once they are not hundreds of files.
 *
 * `startup.rss.*`: the compat binary's resident memory by part, each run a fresh `node --expose-gc`
 * (`scripts/rss-parts.mjs` over the same compiled copy), RSS after a full collection at each step:
 * `.node` (a bare node), `.modules` (+ what nftables mode loads), `.model` (+ the scenario in a
 * NodeView with its node-local state), `.backend` (+ the nft backend after its first full sync into
 * a namespace this suite creates). Medians of the runs, in bytes.
 *
 * Node's compile cache (`NODE_COMPILE_CACHE`, Node >= 22.1; no kpng program enables it): every
 * row above runs with `NODE_DISABLE_COMPILE_CACHE=1`, a start that compiles every module it loads
 * (as a container's start does), whatever environment the bench runs in. `<prefix>.informers.compile-cache` and
 * `<prefix>.floor.modules.compile-cache` (wall, CPU, ratios to the same runs' bare node) are the
 * same starts with `NODE_COMPILE_CACHE` set to a folder made for the run and filled by one
 * unrecorded start first: what a start costs once the cache holds its modules. Both revisions
 * (`--sources`) get the same variables: Node reads them itself. Not on Node 20 (no compile cache:
 * the rows would repeat the others).
 *
 * `--no-informers` leaves both out (they need to create network namespaces); the other rows touch
 * neither the kernel nor the network.
 * Scenario-independent, listed under s1k.
 */
export default defineSuite({
  name: 'startup',
  description: 'kube-proxy --version / --help, and start to informers started (nftables mode), against bare node -e 0',
  scenarios: ['s1k'],
  async run(ctx) {
    const node = { name: 'node', fn: () => runSyncChecked([process.execPath, '-e', '0']) };
    const revisions: Array<[string, string | undefined]> = [['startup', undefined]];
    const sources = ctx.options['sources'];
    if (typeof sources === 'string') revisions.push(['startup.sources', sources]);
    const entries = new Map<string, string>();
    for (const [prefix, dir] of revisions) {
      const entry = await compiledKubeProxy(dir === undefined ? 'startup-bench' : 'startup-bench-sources', dir);
      entries.set(prefix, entry);
      for (const flag of ['version', 'help']) {
        if (ctx.signal.aborted) return;
        await ctx.measureAgainst(
          `${prefix}.${flag}`,
          () => runSyncChecked([process.execPath, entry, `--${flag}`], { env: NO_CACHE }),
          node,
        );
        // Its CPU time (which load barely moves) against the bare node's, alternating.
        await againstNode(ctx, `${prefix}.${flag}`, [entry, `--${flag}`], { wall: false, env: NO_CACHE });
      }
    }
    ctx.log(`startup: node ${process.version} (${process.execPath})`);
    for (const [prefix, entry] of entries)
      for (const floor of ['kubeconfig', 'modules'])
        await floorAgainstNode(ctx, `${prefix}.floor.${floor}`, entry, floor);
    // The same modules as one bundle: what bundling the images' programs would load instead.
    for (const [prefix, entry] of entries) {
      await bundleFloor(entry.slice(0, entry.lastIndexOf('/node_modules/')));
      await floorAgainstNode(ctx, `${prefix}.floor.modules.bundled`, entry, 'bundled');
    }
    const cached = hasCompileCache();
    if (cached)
      for (const [prefix, entry] of entries)
        await withCompileCache(ctx, (env) =>
          floorAgainstNode(ctx, `${prefix}.floor.modules.compile-cache`, entry, 'modules', env),
        );
    if (ctx.options['no-informers'] !== undefined) return;
    await requireNamespaces('startup');
    for (const [prefix, entry] of entries) await informersStarted(ctx, `${prefix}.informers`, entry);
    if (cached)
      for (const [prefix, entry] of entries)
        await withCompileCache(ctx, (env) => informersStarted(ctx, `${prefix}.informers.compile-cache`, entry, env));
    for (const [prefix, entry] of entries) await rssParts(ctx, `${prefix}.rss`, entry);
  },
});

/**
 * `startup-floor.mjs bundled`'s bundle of the compiled copy at `root`: kube-proxy's `run.js` and
 * `run/mode-nftables.js` and the kube source's client-node modules, each an entry of one rolldown
 * build (their shared code in chunks), into `@kpng/kube-proxy/dist/floor-bundle/` (two levels
 * under its package.json, which core reads relative to its module as `dist/cli/main.js` does). As
 * `packages/ipvs/test/kpng-ipvs-bundle.ts` bundles the compat binary for the VM: koffi,
 * client-node and gRPC stay in node_modules, and so do the workspace packages the copy lacks (the
 * lazily imported NetworkPolicy and eBPF packages, which these modules never load).
 */
async function bundleFloor(root: string): Promise<void> {
  const { rolldown } = await import('rolldown');
  const at = (path: string): string => join(root, 'node_modules', path);
  const copied = (id: string): boolean => existsSync(at(id.split('/').slice(0, 2).join('/')));
  const build = await rolldown({
    input: {
      run: at('@kpng/kube-proxy/dist/cli/run.js'),
      'mode-nftables': at('@kpng/kube-proxy/dist/run/mode-nftables.js'),
      'client-node': at('@kpng/core/dist/watch/kube/client-node.js'),
      informer: at('@kpng/core/dist/watch/kube/informer.js'),
      'instrumented-kubeconfig': at('@kpng/core/dist/watch/kube/instrumented-kubeconfig.js'),
    },
    platform: 'node',
    external: (id) =>
      /^(koffi|@kubernetes\/client-node|@grpc\/[^/]+)(\/|$)/.test(id) ||
      id.startsWith('node:') ||
      (id.startsWith('@kpng/') && !copied(id)),
    logLevel: 'silent',
  });
  try {
    await build.write({
      dir: at('@kpng/kube-proxy/dist/floor-bundle'),
      format: 'esm',
      entryFileNames: '[name].mjs',
      chunkFileNames: '[name]-[hash].mjs',
      cleanDir: true,
    });
  } finally {
    await build.close();
  }
}

/** Node's compile cache exists here (`NODE_COMPILE_CACHE` from 22.1, `module.enableCompileCache` from 22.8). */
function hasCompileCache(): boolean {
  const [major = 0] = process.versions.node.split('.').map(Number);
  return major >= 22;
}

/** Variables over this process's for a measured program (never the bare node). */
type CacheEnv = Readonly<Record<string, string>>;

/** Every measured start without Node's compile cache, unless a row says otherwise (the suite's doc comment). */
const NO_CACHE: CacheEnv = { NODE_DISABLE_COMPILE_CACHE: '1' };

/**
 * `measure` with the variables that give its programs a compile cache in a folder of their own,
 * made now and removed after; `measure` fills it with one unrecorded start first.
 */
async function withCompileCache(ctx: SuiteContext, measure: (env: CacheEnv) => Promise<void>): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'kpng-startup-compile-cache-'));
  try {
    ctx.log(`startup: compile cache in ${dir}`);
    await measure({ NODE_COMPILE_CACHE: dir });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Spawn to 'starting informers', and a bare node's spawn to exit, alternating; medians and their ratio. */
async function informersStarted(
  ctx: SuiteContext,
  metric: string,
  entry: string,
  env: CacheEnv = NO_CACHE,
): Promise<void> {
  const server = await FakeApiServer.start({ tls: true, managedFields: true });
  const objects = ctx.objects();
  for (const obj of objects.nodes) server.create(obj as never);
  const kubeconfig = join(tmpdir(), `kpng-startup-bench-${process.pid}.yaml`);
  await writeFile(kubeconfig, kubeconfigYaml(server.url, undefined, server.ca));
  const subject: number[] = [];
  const reference: number[] = [];
  const subjectCpu: number[] = [];
  const referenceCpu: number[] = [];
  const load: number[] = [];
  try {
    await inNamespace(ctx, 'startup', async (ns) => {
      const refusal = namespaceRefusal(ns.name, process.pid, (name) => existsSync(`/run/netns/${name}`));
      if (refusal !== undefined) throw new Error(`refusing to start kube-proxy: ${refusal}`);
      const primed = env === NO_CACHE ? 0 : 1;
      for (let i = -primed; i < ctx.warmup + ctx.runs && !ctx.signal.aborted; i++) {
        const { ms: nodeMs, cpu: nodeCpu } = await childRun(['-e', '0']);
        const launch = programLaunch('kube-proxy', {
          kubeconfig,
          nodeName: objects.benchNode,
          netns: ns.name,
          metricsPort: await freePort(),
          healthPort: await freePort(),
        });
        const program = new ProxyProcess({
          entry,
          args: launch.args,
          env: { ...launch.env, ...env },
          signal: ctx.signal,
        });
        try {
          await program.waitFor((line) => line.msg === 'starting informers', 60_000);
          const ms = performance.now() - program.startedAt;
          const cpu = await program.cpuMs();
          if (i >= ctx.warmup) {
            subject.push(ms);
            reference.push(nodeMs);
            subjectCpu.push(cpu);
            referenceCpu.push(nodeCpu);
            load.push(loadavg()[0]!);
          }
        } finally {
          await program.stop();
        }
      }
    });
  } finally {
    await rm(kubeconfig, { force: true });
    await server.close();
  }
  const rows: Array<[string, number[], string]> = [
    [metric, subject, 'ms'],
    [`${metric}.node`, reference, 'ms'],
    [`${metric}.vs.node`, ratios(subject, reference), 'x'],
    [`${metric}.cpu`, subjectCpu, 'ms'],
    [`${metric}.node.cpu`, referenceCpu, 'ms'],
    [`${metric}.cpu.vs.node`, ratios(subjectCpu, referenceCpu), 'x'],
    [`${metric}.load-1m`, load, 'load'],
  ];
  reportRows(ctx, rows);
}

function reportRows(ctx: SuiteContext, rows: ReadonlyArray<readonly [string, readonly number[], string]>): void {
  for (const [name, values, unit] of rows) {
    const s = summarize([...values]);
    ctx.report({ scenario: ctx.scenario, metric: name, value: s.p50, unit, n: s.n, p50: s.p50, p99: s.p99 });
  }
}

/** Each run's ratio (the pairs ran back to back). */
function ratios(subject: readonly number[], reference: readonly number[]): number[] {
  return subject.map((v, i) => v / (reference[i] ?? Number.NaN));
}

/**
 * A fresh process of this bench's node with `args` (and `env` over this process's variables),
 * awaited: wall ms and its CPU ms (reaped: cutime + cstime).
 */
async function childRun(args: readonly string[], env?: CacheEnv): Promise<{ ms: number; cpu: number }> {
  const before = (await cpuMs()).children;
  const start = performance.now();
  await runChecked(env === undefined ? processExecer : processExecerWith({ env }), [process.execPath, ...args]);
  const ms = performance.now() - start;
  return { ms, cpu: (await cpuMs()).children - before };
}

/** A floor (scripts/startup-floor.mjs) against bare node, alternating: wall and CPU, medians and ratios. */
async function floorAgainstNode(
  ctx: SuiteContext,
  metric: string,
  entry: string,
  floor: string,
  env: CacheEnv = NO_CACHE,
): Promise<void> {
  const root = entry.slice(0, entry.lastIndexOf('/node_modules/'));
  await againstNode(ctx, metric, [FLOOR, root, floor], { wall: true, env });
}

/**
 * A fresh `node ARGS` against bare `node -e 0`, alternating: CPU time (`.cpu`, `.cpu.vs.node`) and
 * with `wall` the wall time too (`metric`, `.vs.node`); medians and the runs' ratios. `env` is
 * the measured process's only; with a compile cache (not `NO_CACHE`), one unrecorded run first fills it.
 */
async function againstNode(
  ctx: SuiteContext,
  metric: string,
  args: readonly string[],
  { wall, env }: { wall: boolean; env: CacheEnv },
): Promise<void> {
  const subject: number[] = [];
  const reference: number[] = [];
  const subjectCpu: number[] = [];
  const referenceCpu: number[] = [];
  if (env !== NO_CACHE) await childRun(args, env);
  for (let i = 0; i < ctx.warmup + ctx.runs && !ctx.signal.aborted; i++) {
    const node = await childRun(['-e', '0']);
    const measured = await childRun(args, env);
    if (i < ctx.warmup) continue;
    subject.push(measured.ms);
    reference.push(node.ms);
    subjectCpu.push(measured.cpu);
    referenceCpu.push(node.cpu);
  }
  reportRows(ctx, [
    ...(wall
      ? ([
          [metric, subject, 'ms'],
          [`${metric}.vs.node`, ratios(subject, reference), 'x'],
        ] as const)
      : []),
    [`${metric}.cpu`, subjectCpu, 'ms'],
    [`${metric}.node.cpu`, referenceCpu, 'ms'],
    [`${metric}.cpu.vs.node`, ratios(subjectCpu, referenceCpu), 'x'],
  ]);
}

/** RSS by part (scripts/rss-parts.mjs), one fresh process a run; medians per part. */
async function rssParts(ctx: SuiteContext, metric: string, entry: string): Promise<void> {
  const root = entry.slice(0, entry.lastIndexOf('/node_modules/'));
  const objects = ctx.objects();
  const scenarioFile = join(tmpdir(), `kpng-startup-rss-${process.pid}.json`);
  await writeFile(scenarioFile, JSON.stringify(objects));
  const parts = new Map<string, number[]>();
  try {
    await inNamespace(ctx, 'rss', async (ns) => {
      for (let i = 0; i < ctx.runs && !ctx.signal.aborted; i++) {
        const { stdout } = await runChecked(processExecer, [
          process.execPath,
          '--expose-gc',
          RSS_PARTS,
          root,
          scenarioFile,
          ns.name,
          objects.benchNode,
        ]);
        for (const [part, bytes] of Object.entries(JSON.parse(stdout) as Record<string, number>))
          void (parts.get(part) ?? parts.set(part, []).get(part)!).push(bytes);
      }
    });
  } finally {
    await rm(scenarioFile, { force: true });
  }
  for (const [part, values] of parts) {
    const s = summarize(values);
    ctx.report({
      scenario: ctx.scenario,
      metric: `${metric}.${part}`,
      value: s.p50,
      unit: 'bytes',
      n: s.n,
      p50: s.p50,
      p99: s.p99,
    });
  }
}
