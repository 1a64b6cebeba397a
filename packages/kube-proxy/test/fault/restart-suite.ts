// Fault suite, proxy `kill -9` and restart: the program runs as a child process; while
// pod-a opens a new connection to the ClusterIP every 20 ms and keeps one connection open through
// it (exchanging a line every 100 ms), the proxy is killed with SIGKILL and started again. The rules
// are the kernel's, so no connection may fail and the held one keeps echoing; after the restart the
// rules must be what they were. A kernel shim on the child's PATH logs every rule write, so the test
// knows what the first sync after the restart wrote.
import { kernelE2e, probeSteadily } from '@kpng/lab';
import { afterAll, beforeAll, describe, it } from 'vitest';
import {
  CLUSTER_IP,
  SERVICE_PORT,
  createKernelShim,
  keepExchanging,
  type KernelShim,
  printFigure,
} from '@kpng/lab/fault';
import { HOLD_SERVICE_PORT, startChildCluster, type ChildCluster } from './child-cluster.js';
import type { ProgramName } from './program-args.js';
import { ruleSnapshot } from './rule-snapshot.js';

// Long enough to cover the restart and its first sync on a loaded machine (~2-8 s here).
const TRAFFIC_MS = 12_000;
const KILL_AFTER_MS = 1_500;

/** What the restart case measured; the test file states what must hold of it. */
export interface RestartOutcome {
  /** New connections through the ClusterIP that failed, from before the kill until after the first sync. */
  readonly failures: readonly unknown[];
  /** The connection held open through the kill and restart: lines echoed, failed, and the longest gap. */
  readonly held: { readonly exchanges: number; readonly failures: readonly string[]; readonly maxGapMs: number };
  /** From the restart until the program reported its first sync (-1: never). */
  readonly firstSyncMs: number;
  /** The kernel writes (kernel shim log lines, `binary mode args | N lines: … @ms`) from the kill until the first sync. */
  readonly firstSyncWrites: readonly string[];
  /** The program's rules (counters removed) before the kill and after the first sync. */
  readonly before: string;
  readonly after: string;
  readonly logs: string;
}

export async function describeRestart(
  name: ProgramName,
  syncPeriod: string,
  verify: (outcome: RestartOutcome) => void,
): Promise<void> {
  const e2e = await kernelE2e(`fault suite: ${name} kill -9 and restart`);
  describe.skipIf(!e2e.run)(`${name} (child process) killed with SIGKILL and restarted under traffic`, () => {
    let cluster: ChildCluster;
    let shim: KernelShim;
    beforeAll(async () => {
      shim = await createKernelShim();
      cluster = await startChildCluster({ program: name, syncPeriod, pathPrefix: shim.dir });
    }, 60_000);
    afterAll(async () => {
      await cluster?.close();
      await shim?.remove();
    });

    it('no new connection fails, the held one keeps echoing, the rules are the same after', async () => {
      const { lab, program } = cluster;
      const ns = lab.node.namespace;
      const held = await lab.hold(lab.pod('pod-a'), { ip: CLUSTER_IP, port: HOLD_SERVICE_PORT });
      try {
        // Let the start-up syncs settle, so "before" is the steady state.
        await new Promise((r) => setTimeout(r, 1_000));
        const before = await ruleSnapshot(ns, name);
        const traffic = probeSteadily(lab.pod('pod-a').namespace, {
          ip: CLUSTER_IP,
          port: SERVICE_PORT,
          durationMs: TRAFFIC_MS,
        });
        traffic.catch(() => {}); // awaited below
        const exchanging = keepExchanging(held, traffic, 'pod-b');
        await new Promise((r) => setTimeout(r, KILL_AFTER_MS));
        await program.kill9();
        const writesAtKill = (await shim.writes()).length;
        const restartedAt = Date.now();
        program.start();
        let firstSyncMs = -1;
        // Up to 45 s for the restarted process to start and finish its first sync (the compat
        // kube-proxy's includes the start-up clean-up of the other modes): a deadline for a slow
        // machine, not a figure (the figure is printed below).
        for (let i = 0; i < 450 && firstSyncMs < 0; i++) {
          if ((await program.metricSum('kubeproxy_sync_proxy_rules_last_timestamp_seconds')) > 0)
            firstSyncMs = Date.now() - restartedAt;
          else await new Promise((r) => setTimeout(r, 100));
        }
        const firstSyncWrites = (await shim.writes()).slice(writesAtKill);
        const result = await traffic;
        const held_ = await exchanging;
        const after = await ruleSnapshot(ns, name);
        printFigure(name, 'kill -9 and restart (child process)', {
          failed: `${result.failures.length}/${result.attempts}`,
          heldExchanges: held_.exchanges,
          heldFailures: held_.failures.length,
          heldMaxGapMs: held_.maxGapMs,
          restartToFirstSyncMs: firstSyncMs,
          writesByFirstSync: firstSyncWrites.length,
          rulesIdentical: before === after ? 'yes' : 'no',
        });
        verify({
          failures: result.failures,
          held: held_,
          firstSyncMs,
          firstSyncWrites,
          before,
          after,
          logs: program.logs().slice(-3_000),
        });
      } finally {
        await held.close();
      }
    }, 90_000);
  });
}
