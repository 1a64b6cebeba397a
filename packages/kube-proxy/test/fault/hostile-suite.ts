// Fault suite, hostile objects through the API: while pod-a opens a new connection to the `web`
// ClusterIP every 20 ms (none may fail), the API server serves one extreme or invalid object after
// another. Each case waits until its object is programmed (a connection through it answers) or
// gone from the rules, prints a figure line, and checks the program counted what it rejected.
import { kernelE2e, probeSteadily, type Lab, type SteadyResult } from '@kpng/lab';
import { afterAll, beforeAll, describe, it } from 'vitest';
import {
  burstService,
  CLUSTER_IP,
  hostileService,
  hostileSlice,
  LONGEST_LABEL,
  LONGEST_PORT_NAME,
  LONGEST_SUBDOMAIN,
  manyEndpoints,
  manyPorts,
  SERVICE_PORT,
  printFigure,
} from '@kpng/lab/fault';
import { startFaultCluster, type FaultCluster } from './cluster.js';
import type { ProgramName, RunningProgram } from './programs.js';

/** Generous: a sync of 1,000 rules on a loaded 2-core machine. */
const APPLY_DEADLINE_MS = 20_000;
/** Traffic runs in windows of this length until every case is done (at most MAX_CASES_MS). */
const WINDOW_MS = 5_000;
const MAX_CASES_MS = 110_000;
const BURST = 1_000;

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

const occurrences = (text: string, pattern: RegExp): number => text.match(pattern)?.length ?? 0;

/** What the hostile-objects case measured; the test file states what must hold of it. */
export interface HostileOutcome {
  /** New connections to `web` that failed while the cases ran. */
  readonly failures: readonly unknown[];
  /** How long the cases took, and the most the traffic covers (later cases would run without traffic). */
  readonly casesMs: number;
  readonly maxCasesMs: number;
  /** `kpng_invalid_objects_total` increments: for the FQDN slice (ignored, not invalid), the Service with a bad clusterIP and the slice with a bad address (-1: the case did not get that far). */
  readonly fqdnCountedInvalid: number;
  readonly invalidServiceCounted: number;
  readonly invalidSliceCounted: number;
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
        const c = lab.pod('pod-c');
        const invalid = (kind: string) => program.metric(`kpng_invalid_objects_total{kind="${kind}"}`);
        const figure = (what: string, figures: Record<string, string | number>) =>
          printFigure(name, `hostile: ${what}`, figures);
        let casesDone!: () => void;
        const cases = new Promise<void>((resolve) => (casesDone = resolve));
        const traffic = steadyUntil(lab, cases);
        traffic.catch(() => {}); // awaited below; a failure before that must not go unhandled
        await sleep(500); // the first window's client is connecting before the first case
        const casesStarted = Date.now();
        let [fqdnCounted, serviceCounted, sliceCounted] = [-1, -1, -1];
        try {
          // A Service with 100 ports, each answering.
          const ports = manyPorts(100);
          server.create(hostileService('many-ports', '198.19.0.20', ports));
          server.create(
            hostileSlice(
              'many-ports-1',
              'many-ports',
              ports.map((p) => p.name),
              [c.ipv4],
            ),
          );
          const lastPortMs = await untilAnswers(lab, '198.19.0.20', ports.at(-1)!.port);
          const firstPortMs = await untilAnswers(lab, '198.19.0.20', ports[0]!.port);
          figure('Service with 100 ports', { lastPortAnsweredMs: lastPortMs, firstPortAnsweredMs: firstPortMs });

          // A slice with 1,000 endpoints (pod-c and 999 that do not exist): all programmed.
          const addresses = manyEndpoints(c, 1_000);
          server.create(hostileService('many-endpoints', '198.19.0.21', [{ name: 'http', port: 80 }]));
          server.create(hostileSlice('many-endpoints-1', 'many-endpoints', ['http'], addresses));
          const absent = /198\.18\.20[0-3]\.\d+/g;
          const endpointsMs = await untilRules(lab, program, (t) => new Set(t.match(absent)).size === 999);
          figure('slice with 1,000 endpoints', { allInRulesMs: endpointsMs });

          // The longest names: Service and port 63 characters, slice 253.
          server.create(hostileService(LONGEST_LABEL, '198.19.0.22', [{ name: LONGEST_PORT_NAME, port: 80 }]));
          server.create(hostileSlice(LONGEST_SUBDOMAIN, LONGEST_LABEL, [LONGEST_PORT_NAME], [c.ipv4]));
          figure('63-character Service and port names, 253-character slice name', {
            answeredMs: await untilAnswers(lab, '198.19.0.22', 80),
          });

          // An FQDN slice for web: ignored (not invalid), web unchanged.
          const invalidSlicesBefore = await invalid('EndpointSlice');
          server.create(hostileSlice('web-fqdn', 'web', ['http'], ['pod-x.example.invalid'], 'FQDN'));
          await sleep(1_000);
          fqdnCounted = (await invalid('EndpointSlice')) - invalidSlicesBefore;
          figure('FQDN slice for web', { countedInvalid: fqdnCounted });

          // A slice without a Service, then its Service.
          server.create(hostileSlice('ghost-1', 'ghost', ['http'], [c.ipv4]));
          await sleep(1_000);
          server.create(hostileService('ghost', '198.19.0.24', [{ name: 'http', port: 80 }]));
          figure('slice without a Service, Service created later', {
            answeredAfterServiceMs: await untilAnswers(lab, '198.19.0.24', 80),
          });

          // 1,000 Services created in a burst, then deleted in a burst: none left in the rules.
          const burst = /198\.19\.[4-7]\.\d+/g;
          for (let i = 0; i < BURST; i++) server.create(burstService(i));
          const createdMs = await untilRules(lab, program, (t) => new Set(t.match(burst)).size === BURST);
          for (let i = 0; i < BURST; i++) server.delete(burstService(i));
          const deletedMs = await untilRules(lab, program, (t) => occurrences(t, burst) === 0);
          figure('1,000 Services created then deleted in a burst', {
            allProgrammedMs: createdMs,
            allGoneMs: deletedMs,
          });

          // A Service with an invalid clusterIP: counted, skipped; fixed, it answers.
          const invalidServicesBefore = await invalid('Service');
          server.create(hostileSlice('fix-service-1', 'fix-service', ['http'], [c.ipv4]));
          server.create(hostileService('fix-service', '198.19.0.300', [{ name: 'http', port: 80 }]));
          serviceCounted = await untilCounted(() => invalid('Service'), invalidServicesBefore);
          server.update(hostileService('fix-service', '198.19.0.23', [{ name: 'http', port: 80 }]));
          figure('Service with clusterIP 198.19.0.300, then fixed', {
            countedInvalid: serviceCounted,
            fixAnsweredMs: await untilAnswers(lab, '198.19.0.23', 80),
          });

          // A slice with a bad address: counted, skipped; fixed, it answers.
          const slicesBefore = await invalid('EndpointSlice');
          server.create(hostileService('fix-slice', '198.19.0.25', [{ name: 'http', port: 80 }]));
          server.create(hostileSlice('fix-slice-1', 'fix-slice', ['http'], ['198.18.999.1']));
          sliceCounted = await untilCounted(() => invalid('EndpointSlice'), slicesBefore);
          server.update(hostileSlice('fix-slice-1', 'fix-slice', ['http'], [c.ipv4]));
          figure('slice with address 198.18.999.1, then fixed', {
            countedInvalid: sliceCounted,
            fixAnsweredMs: await untilAnswers(lab, '198.19.0.25', 80),
          });
        } finally {
          casesDone();
        }
        const casesMs = Date.now() - casesStarted;
        const result = await traffic;
        figure('web throughout', { failed: `${result.failures.length}/${result.attempts}`, casesMs });
        verify({
          failures: result.failures,
          casesMs,
          maxCasesMs: MAX_CASES_MS,
          fqdnCountedInvalid: fqdnCounted,
          invalidServiceCounted: serviceCounted,
          invalidSliceCounted: sliceCounted,
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
