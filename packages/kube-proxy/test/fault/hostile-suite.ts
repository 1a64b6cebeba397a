// Fault suite, hostile objects through the API: while pod-a opens a new connection to the `web`
// ClusterIP every 20 ms (none may fail), the API server serves one extreme or invalid object after
// another. Each case waits until its object is programmed (a connection through it answers) or
// gone from the rules, prints a figure line, and checks the program counted what it rejected.
import { kernelE2e, probeSteadily, type Lab, type SteadyResult } from '@kpng/lab';
import { afterAll, beforeAll, describe, it } from 'vitest';
import {
  CLUSTER_IP,
  printFigure,
  runHostileCases,
  SERVICE_PORT,
  type HostileCounts,
  type InvalidKind,
} from '@kpng/lab/fault';
import { startFaultCluster, type FaultCluster } from './cluster.js';
import type { ProgramName, RunningProgram } from './programs.js';

/** Generous: a sync of 1,000 rules on a loaded 2-core machine. */
const APPLY_DEADLINE_MS = 20_000;
/** Traffic runs in windows of this length until every case is done (at most MAX_CASES_MS). */
const WINDOW_MS = 5_000;
const MAX_CASES_MS = 110_000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Probes (every 200 ms, bounded) until a new connection to ip:port answers; ms it took. */
async function untilAnswers(lab: Lab, ip: string, port: number): Promise<number> {
  const started = Date.now();
  let last = '';
  while (Date.now() - started < APPLY_DEADLINE_MS) {
    const r = await lab.probe(lab.pod('pod-a'), { proto: 'tcp', ip, port, timeoutMs: 500 });
    if (r.ok) return Date.now() - started;
    last = r.error ?? '?';
    await sleep(200);
  }
  throw new Error(`${ip}:${port} never answered within ${APPLY_DEADLINE_MS} ms (last: ${last})`);
}

/** The node's rules as text (`nft list ruleset` or `iptables-save`), to count what got programmed. */
async function rules(lab: Lab, program: RunningProgram): Promise<string> {
  const argv = program.table === undefined ? ['iptables-save'] : ['nft', 'list', 'ruleset'];
  return (await lab.node.namespace.exec(argv)).stdout;
}

/** Polls the rules (bounded) until `done(text)`; ms it took. */
async function untilRules(lab: Lab, program: RunningProgram, done: (text: string) => boolean): Promise<number> {
  const started = Date.now();
  while (Date.now() - started < APPLY_DEADLINE_MS) {
    if (done(await rules(lab, program))) return Date.now() - started;
    await sleep(250);
  }
  throw new Error(`the rules never reached the expected state within ${APPLY_DEADLINE_MS} ms`);
}

/**
 * New connections every 20 ms (windows of {@link WINDOW_MS} back to back: a window's client starts
 * within ~0.1 s of the last one's end) until `done` settles, so the traffic lasts as long as the
 * cases, not a guessed upper bound.
 */
async function steadyUntil(lab: Lab, done: Promise<unknown>): Promise<SteadyResult> {
  let finished = false;
  void done.finally(() => (finished = true)).catch(() => {});
  const started = Date.now();
  let attempts = 0;
  const failures: SteadyResult['failures'][number][] = [];
  const servers = new Set<string>();
  while (!finished && Date.now() - started < MAX_CASES_MS) {
    const r = await probeSteadily(lab.pod('pod-a').namespace, {
      ip: CLUSTER_IP,
      port: SERVICE_PORT,
      durationMs: WINDOW_MS,
    });
    attempts += r.attempts;
    failures.push(...r.failures);
    r.servers.forEach((server) => servers.add(server));
  }
  return { started, attempts, failures, servers: [...servers] };
}

/** What the hostile-objects case measured; the test file states what must hold of it. */
export interface HostileOutcome extends HostileCounts {
  /** New connections to `web` that failed while the cases ran. */
  readonly failures: readonly unknown[];
  /** How long the cases took, and the most the traffic covers (later cases would run without traffic). */
  readonly casesMs: number;
  readonly maxCasesMs: number;
  readonly logs: string;
}

export async function describeHostileObjects(
  name: ProgramName,
  verify: (outcome: HostileOutcome) => void,
): Promise<void> {
  const e2e = await kernelE2e(`fault suite: ${name} hostile objects`);
  describe.skipIf(!e2e.run)(`${name} stays up and serving through hostile objects`, () => {
    let cluster: FaultCluster;
    beforeAll(async () => {
      cluster = await startFaultCluster(name, { syncPeriod: '2s', echoPods: ['pod-b', 'pod-c'] });
    });
    afterAll(() => cluster?.close());

    it(
      'extreme and invalid objects: no connection to web fails, invalid ones are counted, fixes land',
      async () => {
        const { lab, server, program } = cluster;
        const invalid = (kind: InvalidKind) => program.metric(`kpng_invalid_objects_total{kind="${kind}"}`);
        const figure = (what: string, figures: Record<string, string | number>) =>
          printFigure(name, `hostile: ${what}`, figures);
        let casesDone!: () => void;
        const cases = new Promise<void>((resolve) => (casesDone = resolve));
        const traffic = steadyUntil(lab, cases);
        traffic.catch(() => {}); // awaited below; a failure before that must not go unhandled
        await sleep(500); // the first window's client is connecting before the first case
        const casesStarted = Date.now();
        const counts = await runHostileCases({
          server,
          pod: lab.pod('pod-c'),
          untilAnswers: (ip, port) => untilAnswers(lab, ip, port),
          untilRules: (done) => untilRules(lab, program, done),
          invalid,
          untilCounted: (kind, before) => untilCounted(() => invalid(kind), before),
          settleMs: 1_000,
          figure,
        }).finally(casesDone);
        const casesMs = Date.now() - casesStarted;
        const result = await traffic;
        figure('web throughout', { failed: `${result.failures.length}/${result.attempts}`, casesMs });
        verify({
          failures: result.failures,
          casesMs,
          maxCasesMs: MAX_CASES_MS,
          ...counts,
          logs: program.logs().slice(-3000),
        });
      },
      MAX_CASES_MS + 30_000,
    );
  });
}

/** Polls a counter (bounded) until it rose above `before`; by how much. */
async function untilCounted(read: () => Promise<number>, before: number): Promise<number> {
  for (let i = 0; i < 50; i++) {
    const now = await read();
    if (now > before) return now - before;
    await sleep(200);
  }
  throw new Error('the invalid object was never counted in kpng_invalid_objects_total');
}
