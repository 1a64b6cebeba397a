// Fault suite, drift: another program removes what the proxy programmed (see drift.ts); the API
// does not change. The check every syncPeriod (2 s for nft, 3 s for iptables here, 30 s by default) repairs what it covers,
// the full resync (kpng-<backend>: --full-sync-period 3s; the compat kube-proxy's is hourly, as
// upstream's, so those cases run on kpng-<backend> only) the rest, counted in
// kpng_sync_drift_repairs_total. A pod connects to the ClusterIP every 20 ms throughout;
// connections after the repair deadline must all succeed.
import { kernelE2e } from '@kpng/lab';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { CLUSTER_IP, printFigure, underTraffic } from '@kpng/lab/fault';
import { startFaultCluster, type FaultCluster } from './cluster.js';
import type { DriftCase } from './drift.js';
import type { ProgramName } from './programs.js';

/** nft's check is one nft call; iptables' 13 calls per family, so it gets a longer period under load. */
const SYNC_PERIOD_MS = { nft: 2_000, iptables: 3_000 } as const;
const FULL_SYNC_PERIOD_MS = 3_000;
/** Generous: one period (the repair every --sync-period, upstream's periodic sync), plus the sync, plus a loaded CI machine. */
const SLACK_MS = 4_000;

/**
 * One program's drift cases (one test file per program, so programs run in parallel). `fullSync`:
 * the program takes --full-sync-period, so the cases only a full resync finds run too.
 */
/** What one drift case measured; the test file states what must hold of it. */
export interface DriftOutcome {
  /** The API server's resourceVersion moved during the case (no API change is needed to repair). */
  readonly apiChanged: boolean;
  /** Connections that failed after the repair deadline (one period plus slack after the fault). */
  readonly lateFailures: readonly unknown[];
  /** Repairs counted under the case's kind, and under any kind. */
  readonly repairs: number;
  readonly repairsAnyKind: number;
  /** Whether the repair must be counted under the case's own kind (iptables' check may race a total flush). */
  readonly kindExact: boolean;
  /** The program's recent logs, for assertion messages. */
  readonly logs: string;
}

export async function describeDrift(
  name: ProgramName,
  backend: keyof typeof SYNC_PERIOD_MS,
  allCases: readonly DriftCase[],
  fullSync: boolean,
  verify: (outcome: DriftOutcome) => void,
): Promise<void> {
  const e2e = await kernelE2e(`fault suite: ${name} drift`);
  describe.skipIf(!e2e.run)(`${name} repairs drift without an API change`, () => {
    let cluster: FaultCluster;
    beforeAll(async () => {
      cluster = await startFaultCluster(name, {
        syncPeriod: `${SYNC_PERIOD_MS[backend] / 1000}s`,
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
        const all = `kpng_sync_drift_repairs_total{backend="${backend}",`;
        const [before, beforeAll] = [await program.metric(series), await program.metricSum(all)];
        const period = drift.foundBy === 'check' ? SYNC_PERIOD_MS[backend] : FULL_SYNC_PERIOD_MS;
        const deadline = period + SLACK_MS;
        const revision = server.resourceVersion;
        const figure = await underTraffic(lab, 500 + deadline + 1_000, 500, () =>
          drift.run(lab.node.namespace, program.table ?? '', CLUSTER_IP),
        );
        const repairs = (await program.metric(series)) - before;
        const repairsAnyKind = (await program.metricSum(all)) - beforeAll;
        printFigure(name, `drift: ${drift.name}`, {
          failed: `${figure.failed}/${figure.attempts}`,
          repairedWithinMs: figure.brokenMs,
          syncPeriodMs: period,
          [`repaired_${drift.kind}`]: repairs,
          repairedAnyKind: repairsAnyKind,
        });
        // Not asserted: that connections failed at all (a check may land right after the fault and
        // repair it before the next connection; a filter flush breaks nothing). The repair count
        // shows the fault happened and was repaired. Counted once; under the expected kind unless
        // the check raced the other program's commands (iptables' check reads the canary, then the
        // jumps: a flush of everything that lands between those reads is found as a missing jump).
        verify({
          apiChanged: server.resourceVersion !== revision,
          lateFailures: figure.traffic.failures.filter((f) => f.at > figure.faultAt + deadline),
          repairs,
          repairsAnyKind,
          kindExact: drift.kind !== 'table' || backend === 'nft',
          logs: program.logs().slice(-4000),
        });
      },
      30_000,
    );
  });
}
