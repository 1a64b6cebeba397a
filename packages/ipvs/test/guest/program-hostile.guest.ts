// The fault suite's hostile objects (issue 15) for the IPVS backend: kpng-ipvs (bundled, see
// kpng-ipvs-child.ts) reads the lab's fake API server on the guest's loopback and programs the lab's
// node namespace in the VM. The cases the nft and iptables programs run (`runHostileCases` of
// `@kpng/lab/fault`): while pod-a opens a new connection to `web` every 20 ms (none may fail),
// the API server serves one extreme or invalid object after another; each case waits until its
// object answers or is in (or gone from) IPVS, prints a figure, and the invalid ones must be counted
// exactly once and their fixes applied.
import { probeSteadily, type SteadyResult } from '@kpng/lab';
import { CLUSTER_IP, printFigure, runHostileCases, SERVICE_PORT, type InvalidKind } from '@kpng/lab/fault';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApiCluster, type ApiCluster } from './api-cluster.js';

const PROGRAM = 'kpng-ipvs (VM, kernel 6.1)';
/** Under emulation on a loaded host (figures are printed; no wall-clock assertion). */
const APPLY_BUDGET_MS = 120_000;
/** Traffic in windows of this length until every case is done (at most MAX_CASES_MS). */
const WINDOW_MS = 10_000;
const MAX_CASES_MS = 480_000;
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

describe('kpng-ipvs stays up and serving through hostile objects (VM)', () => {
  let cluster: ApiCluster;

  /** Probes until a new connection to ip:port answers; ms it took. */
  const untilAnswers = async (ip: string, port: number): Promise<number> => {
    const started = Date.now();
    let last = '';
    while (Date.now() - started < APPLY_BUDGET_MS) {
      const r = await cluster.lab.probe(cluster.lab.pod('pod-a'), { proto: 'tcp', ip, port, timeoutMs: 1_000 });
      if (r.ok) return Date.now() - started;
      last = r.error ?? '?';
      await sleep(500);
    }
    throw new Error(`${ip}:${port} never answered within ${APPLY_BUDGET_MS} ms (last: ${last})`);
  };
  /** Polls `ipvsadm -Sn` until `done(text)`; ms it took. */
  const untilIpvs = async (done: (text: string) => boolean): Promise<number> => {
    const started = Date.now();
    while (Date.now() - started < APPLY_BUDGET_MS) {
      if (done((await cluster.lab.node.namespace.exec(['ipvsadm', '-Sn'])).stdout)) return Date.now() - started;
      await sleep(1_000);
    }
    throw new Error(`IPVS (ipvsadm -Sn) never reached the expected state within ${APPLY_BUDGET_MS} ms`);
  };
  /** Polls a counter until it rose above `before`, then once more a sync later; by how much. */
  const untilCounted = async (series: string, before: number): Promise<number> => {
    const { program } = cluster;
    await program.waitFor(`${series} to rise`, async () => (await program.metric(series)) > before, APPLY_BUDGET_MS);
    await sleep(3_000); // one more sync period: counted once, not once per sync
    return (await program.metric(series)) - before;
  };
  /** New connections every 20 ms, in windows back to back, until `done` settles. */
  const steadyUntil = async (done: Promise<unknown>): Promise<SteadyResult> => {
    let finished = false;
    void done.finally(() => (finished = true)).catch(() => {});
    const started = Date.now();
    let attempts = 0;
    const failures: SteadyResult['failures'][number][] = [];
    while (!finished && Date.now() - started < MAX_CASES_MS) {
      const r = await probeSteadily(cluster.lab.pod('pod-a').namespace, {
        ip: CLUSTER_IP,
        port: SERVICE_PORT,
        durationMs: WINDOW_MS,
      });
      attempts += r.attempts;
      failures.push(...r.failures);
    }
    return { started, attempts, failures, servers: [] };
  };

  beforeAll(async () => {
    cluster = await startApiCluster();
    printFigure(PROGRAM, 'start through the API server', {
      startToSyncedMs: cluster.startToSyncedMs,
      servingMs: await untilAnswers(CLUSTER_IP, SERVICE_PORT),
    });
  });
  afterAll(() => cluster?.close());

  it(
    'extreme and invalid objects: no connection to web fails, invalid ones are counted once, fixes land',
    async () => {
      const { lab, server, program: child } = cluster;
      const invalid = (kind: InvalidKind): string => `kpng_invalid_objects_total{kind="${kind}"}`;
      let casesDone!: () => void;
      const cases = new Promise<void>((resolve) => (casesDone = resolve));
      const traffic = steadyUntil(cases);
      traffic.catch(() => {}); // awaited below; a failure before that must not go unhandled
      await sleep(1_000);
      const casesStarted = Date.now();
      const counts = await runHostileCases({
        server,
        pod: lab.pod('pod-c'),
        untilAnswers,
        untilRules: untilIpvs,
        invalid: (kind) => child.metric(invalid(kind)),
        untilCounted: (kind, before) => untilCounted(invalid(kind), before),
        settleMs: 6_000, // two sync periods
        figure: (what, figures) => printFigure(PROGRAM, `hostile: ${what}`, figures),
      }).finally(casesDone);
      const casesMs = Date.now() - casesStarted;
      const result = await traffic;
      printFigure(PROGRAM, 'hostile: web throughout', {
        failed: `${result.failures.length}/${result.attempts}`,
        casesMs,
      });
      expect(result.failures, child.logs().slice(-3_000)).toEqual([]);
      expect(casesMs, 'every case ran under traffic').toBeLessThan(MAX_CASES_MS);
      expect(counts.fqdnCountedInvalid, 'an FQDN slice is ignored, not invalid').toBe(0);
      expect([counts.invalidServiceCounted, counts.invalidSliceCounted], 'each invalid object counted once').toEqual([
        1, 1,
      ]);
    },
    MAX_CASES_MS + 120_000,
  );
});
