// Fault suite, kernel writes failing: the program runs as a child process whose PATH
// starts with a kernel shim (fault/kernel-shim.ts). While pod-a opens a new connection to the
// ClusterIP every 20 ms, a new Service is created while every rule write fails (exit 1 with an
// error); in a second case the binary is missing (exit 127, as a shell reports it); in a third
// the writes hang (the shim sleeps 30 s before running the real binary) and the backend's write
// timeout (KPNG_WRITE_TIMEOUT or --write-timeout, 2 s here; 60 s / 5 min by default) kills them. The previous rules
// must stay (no connection to the old Service fails), the failure must be counted (a timeout also
// as one) and retried with the retry delay (syncPeriod), /healthz must turn 503 once an update has
// waited 2 x syncPeriod and 200 again after recovery, and the new Service must work once writes do.
// (Upstream has no write timeout: a hung iptables-restore holds its sync loop for good; `-w 5`
// bounds only the xtables lock wait.)
import { kernelE2e, probeSteadily, type Lab } from '@kpng/lab';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CLUSTER_IP,
  endpointSlice,
  SERVICE_PORT,
  service,
  createKernelShim,
  type KernelShim,
  type ShimMode,
  printFigure,
} from '@kpng/lab/fault';
import type { ChildProgram } from './child-program.js';
import { startChildCluster, type ChildCluster } from './child-cluster.js';
import { backendOf, type ProgramName } from './program-args.js';
import { ruleSnapshot } from './rule-snapshot.js';

const BACKEND_FAILURE_METRIC: Record<'nft' | 'iptables', string> = {
  nft: 'kubeproxy_sync_proxy_rules_nftables_sync_failures_total',
  iptables: 'kubeproxy_sync_proxy_rules_iptables_restore_failures_total',
};

/** A second Service (its own ClusterIP, the same endpoints): the change the failing writes carry. */
function extraService(index: number) {
  const s = service();
  const ip = `198.19.0.${20 + index}`;
  return {
    ...s,
    metadata: { ...s.metadata, name: `extra-${index}` },
    spec: { ...s.spec, clusterIP: ip, clusterIPs: [ip] },
  };
}

/** Its slice: pod-b, like `web`'s. */
function extraSlice(lab: Lab, index: number) {
  const s = endpointSlice([lab.pod('pod-b')]);
  const labels = { 'kubernetes.io/service-name': `extra-${index}` };
  return { ...s, metadata: { ...s.metadata, name: `extra-${index}-1`, labels } };
}

const extraIP = (index: number): string => `198.19.0.${20 + index}`;

async function answers(lab: Lab, ip: string): Promise<boolean> {
  return (await lab.probe(lab.pod('pod-a'), { proto: 'tcp', ip, port: SERVICE_PORT, timeoutMs: 500 })).ok;
}

/** Polls every 200 ms (bounded) until `check` holds; ms it took. */
async function until(deadlineMs: number, what: string, check: () => Promise<boolean>): Promise<number> {
  const started = Date.now();
  while (Date.now() - started < deadlineMs) {
    if (await check()) return Date.now() - started;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`not within ${deadlineMs} ms: ${what}`);
}

interface FaultPhase {
  readonly name: string;
  readonly shim: ShimMode;
  /** How long the writes misbehave before the shim passes again. */
  readonly holdMs: (syncPeriodMs: number) => number;
}

const PHASES: readonly FaultPhase[] = [
  { name: 'writes fail (exit 1)', shim: { kind: 'fail' }, holdMs: (p) => 3 * p + 1_000 },
  { name: 'binary missing (exit 127)', shim: { kind: 'missing' }, holdMs: (p) => 3 * p + 1_000 },
  // Each write hangs far longer than the hold: only the write timeout ends it.
  {
    name: 'writes hang (killed by the write timeout)',
    shim: { kind: 'hang', seconds: 30 },
    holdMs: (p) => 3 * p + 1_000,
  },
];

/** The backend's write timeout in this suite: short, the hang phase waits for it. */
export const WRITE_TIMEOUT_MS = 2_000;

/** What one write-failure phase measured; the test file states what must hold of it. */
export interface WriteFailureOutcome {
  readonly phase: ShimMode['kind'];
  /** New connections to the existing Service that failed, from the fault until the new Service answered. */
  readonly failures: readonly unknown[];
  /** The new Service was in the kernel's rules while the writes misbehaved. */
  readonly newServiceDuringFault: boolean;
  /** The writes the shim failed, hung or refused (its log lines). */
  readonly faultyWrites: readonly string[];
  /**
   * At most this many faulty writes if retries are paced (not a hot loop): one per syncPeriod over
   * the fault, plus the syncs the Service and its slice each trigger and one for timing slack.
   */
  readonly retryBound: number;
  /** Failed syncs counted in `kpng_sync_failures_total`, and in the backend's own (kube-proxy's) failure metric. */
  readonly syncFailures: number;
  readonly modeFailures: number;
  /** Of those, syncs whose write was killed by the write timeout (`kpng_sync_write_timeouts_total`). */
  readonly writeTimeouts: number;
  readonly logs: string;
}

/**
 * What every program must show in every phase: no failed connection to the existing Service, the
 * new one not written while the kernel misbehaves, each failed sync retried at its pace (not in a
 * hot loop) and counted in both failure metrics, and the write timeout counted for the hang phase's
 * failures only. Every entry file passes it as its verify.
 */
export function expectWriteFailuresHandled(o: WriteFailureOutcome): void {
  expect(o.failures, o.logs).toEqual([]);
  expect(o.newServiceDuringFault).toBe(false);
  expect(o.faultyWrites.length, o.faultyWrites.join('\n')).toBeGreaterThanOrEqual(2);
  expect(o.faultyWrites.length).toBeLessThanOrEqual(o.retryBound);
  expect(o.syncFailures, o.logs).toBeGreaterThanOrEqual(2);
  expect(o.modeFailures, o.logs).toBeGreaterThanOrEqual(2);
  expect(o.writeTimeouts, o.logs).toBe(o.phase === 'hang' ? o.syncFailures : 0);
}

export async function describeWriteFailures(
  name: ProgramName,
  syncPeriodMs: number,
  verify: (outcome: WriteFailureOutcome) => void,
): Promise<void> {
  const e2e = await kernelE2e(`fault suite: ${name} kernel write failures`);
  describe.skipIf(!e2e.run)(`${name} (child process) with failing kernel writes`, () => {
    let cluster: ChildCluster;
    let shim: KernelShim;
    beforeAll(async () => {
      shim = await createKernelShim();
      cluster = await startChildCluster({
        program: name,
        syncPeriod: `${syncPeriodMs}ms`,
        pathPrefix: shim.dir,
        writeTimeout: `${WRITE_TIMEOUT_MS}ms`,
      });
      // Start-up syncs done and reported healthy before the first fault (/healthz is 200 before the
      // first sync too, as upstream's: the last-sync metric says that the first one, with the compat
      // start-up clean-up inside it, landed).
      await until(
        30_000,
        'the first sync',
        async () => (await cluster.program.metricSum('kubeproxy_sync_proxy_rules_last_timestamp_seconds')) > 0,
      );
      await until(20_000, '/healthz 200 after start', async () => (await cluster.program.healthz()) === 200);
    }, 60_000);
    afterAll(async () => {
      await cluster?.close();
      await shim?.remove();
    });

    PHASES.forEach((phase, index) => {
      it(`${phase.name}: old rules keep serving, counted, retried, unhealthy then healthy`, async () => {
        const { lab, server, program } = cluster;
        const holdMs = phase.holdMs(syncPeriodMs);
        const failuresBefore = await failureCounts(program, name);
        const writesBefore = (await shim.writes()).length;
        const traffic = probeSteadily(lab.pod('pod-a').namespace, {
          ip: CLUSTER_IP,
          port: SERVICE_PORT,
          durationMs: holdMs + 2 * syncPeriodMs + 4_000,
        });
        traffic.catch(() => {}); // awaited below
        await shim.set(phase.shim);
        const faultAt = Date.now();
        server.create(extraService(index));
        server.create(extraSlice(lab, index));
        // Unhealthy once the update has waited 2 x syncPeriod (+ a sync period and slack for the load).
        const unhealthyMs = await until(
          3 * syncPeriodMs + 4_000,
          '/healthz 503',
          async () => (await program.healthz()) === 503,
        );
        // The writes really failed: the new Service is not in the kernel's rules.
        const newServiceDuringFault = (await ruleSnapshot(lab.node.namespace, name)).includes(extraIP(index));
        await new Promise((r) => setTimeout(r, Math.max(0, holdMs - (Date.now() - faultAt))));
        await shim.set({ kind: 'pass' });
        const restoredAt = Date.now();
        const healthyMs = await until(
          3 * syncPeriodMs + 15_000,
          '/healthz 200 after recovery',
          async () => (await program.healthz()) === 200,
        );
        const inRulesMs = await until(20_000, 'the new Service in the rules', async () =>
          (await ruleSnapshot(lab.node.namespace, name)).includes(extraIP(index)),
        );
        await until(20_000, 'the new Service answers', () => answers(lab, extraIP(index)));
        const answersMs = Date.now() - restoredAt;
        const result = await traffic;
        const faulty = (await shim.writes()).slice(writesBefore).filter((w) => !w.includes(' pass '));
        const times = faulty.map((w) => Number(w.split('@').at(-1)));
        const intervals = times.slice(1).map((t, i) => t - times[i]!);
        const failuresAfter = await failureCounts(program, name);
        printFigure(name, `kernel ${phase.name}`, {
          failed: `${result.failures.length}/${result.attempts}`,
          faultyWrites: faulty.length,
          retryIntervalsMs: intervals.join(',') || '-',
          syncFailuresCounted: failuresAfter.kpng - failuresBefore.kpng,
          modeFailuresCounted: failuresAfter.mode - failuresBefore.mode,
          writeTimeoutsCounted: failuresAfter.timeouts - failuresBefore.timeouts,
          syncPeriodMs,
          secondsToUnhealthy: (unhealthyMs / 1_000).toFixed(1),
          secondsToHealthyAfterRestore: (healthyMs / 1_000).toFixed(1),
          newServiceInRulesAfterRestoreMs: inRulesMs + healthyMs,
          newServiceAnswersAfterRestoreMs: answersMs,
        });
        verify({
          phase: phase.shim.kind,
          failures: result.failures,
          newServiceDuringFault,
          faultyWrites: faulty,
          retryBound: Math.ceil(holdMs / syncPeriodMs) + 3,
          syncFailures: failuresAfter.kpng - failuresBefore.kpng,
          modeFailures: failuresAfter.mode - failuresBefore.mode,
          writeTimeouts: failuresAfter.timeouts - failuresBefore.timeouts,
          logs: program.logs().slice(-3_000),
        });
      }, 90_000);
    });
  });
}

async function failureCounts(program: ChildProgram, name: ProgramName) {
  return {
    kpng: await program.metricSum('kpng_sync_failures_total'),
    mode: await program.metricSum(BACKEND_FAILURE_METRIC[backendOf(name)]),
    timeouts: await program.metricSum('kpng_sync_write_timeouts_total'),
  };
}
