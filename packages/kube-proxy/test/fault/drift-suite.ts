// Fault suite, drift: another program removes what the proxy programmed (see drift.ts); the API
// does not change. The check every syncPeriod (2 s here, 30 s by default) repairs what it covers,
// the full resync (kpng-<backend>: --full-sync-period 3s; the compat kube-proxy's is hourly, as
// upstream's, so those cases run on kpng-<backend> only) the rest, counted in
// kpng_sync_drift_repairs_total. A pod connects to the ClusterIP every 20 ms throughout;
// connections after the repair deadline must all succeed.
import { kernelE2e } from '@kpng/lab';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLUSTER_IP } from '../objects.js';
import { startFaultCluster, type FaultCluster } from './cluster.js';
import type { DriftCase } from './drift.js';
import type { ProgramName } from './programs.js';
import { printFigure, underTraffic } from './run-case.js';

const SYNC_PERIOD_MS = 2_000;
const FULL_SYNC_PERIOD_MS = 3_000;
/** Generous: one period, plus the sync, plus a loaded CI machine. */
const SLACK_MS = 3_000;

/**
 * One program's drift cases (one test file per program, so programs run in parallel). `fullSync`:
 * the program takes --full-sync-period, so the cases only a full resync finds run too.
 */
export async function describeDrift(
  name: ProgramName,
  backend: string,
  allCases: readonly DriftCase[],
  fullSync: boolean,
): Promise<void> {
  const e2e = await kernelE2e(`fault suite: ${name} drift`);
  describe.skipIf(!e2e.run)(`${name} repairs drift without an API change`, () => {
    let cluster: FaultCluster;
    beforeAll(async () => {
      cluster = await startFaultCluster(name, {
        syncPeriod: `${SYNC_PERIOD_MS / 1000}s`,
        ...(fullSync ? { fullSyncPeriod: `${FULL_SYNC_PERIOD_MS / 1000}s` } : {}),
      });
    });
    afterAll(() => cluster?.close());

    const cases = allCases.filter((c) => fullSync || c.foundBy === 'check');
    it.each(cases)(
      '$name',
      async (drift) => {
        const { lab, server, program } = cluster;
        const series = `kpng_sync_drift_repairs_total{backend="${backend}",kind="${drift.kind}"}`;
        const before = await program.metric(series);
        const period = drift.foundBy === 'check' ? SYNC_PERIOD_MS : FULL_SYNC_PERIOD_MS;
        const deadline = period + SLACK_MS;
        const revision = server.resourceVersion;
        const figure = await underTraffic(lab, 500 + deadline + 1_000, 500, () =>
          drift.run(lab.node.namespace, program.table ?? '', CLUSTER_IP),
        );
        const repairs = (await program.metric(series)) - before;
        printFigure(name, `drift: ${drift.name}`, {
          failed: `${figure.failed}/${figure.attempts}`,
          repairedWithinMs: figure.brokenMs,
          syncPeriodMs: period,
          repairsCounted: repairs,
        });
        expect(server.resourceVersion).toBe(revision); // no API change was needed
        if (drift.breaksTraffic)
          expect(figure.failed, 'the fault should break traffic until repaired').toBeGreaterThan(0);
        const late = figure.traffic.failures.filter((f) => f.at > figure.faultAt + deadline);
        expect(late, `connections failed after the repair deadline; logs:\n${program.logs().slice(-3000)}`).toEqual([]);
        expect(repairs, `repairs counted; logs:\n${program.logs().slice(-4000)}`).toBe(1);
      },
      30_000,
    );
  });
}
