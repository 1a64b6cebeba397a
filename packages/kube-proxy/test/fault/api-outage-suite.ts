// Fault suite, API server outage: the API server stops for 30 s (every watch cut, new connections
// refused); while it is down the EndpointSlice changes and the change history is compacted, so the
// program's resumed watches get 410 Gone and must relist. Throughout, pod-a opens a new connection
// to the ClusterIP every 20 ms: none may fail (the rules stay as they were). After the restart the
// missed change, then a new one, must reach the rules, and no update may be lost: the program is
// then replaced by a fresh one of its kind (same flags, same namespace, same API state), whose first
// sync rewrites everything, and the rules must be what they were.
import { kernelE2e, probeSteadily, type Lab } from '@kpng/lab';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { CLUSTER_IP, endpointSlice, SERVICE_PORT, printFigure } from '@kpng/lab/fault';
import { startFaultCluster, type FaultCluster } from './cluster.js';
import type { ProgramName, RunningProgram } from './programs.js';
import { ruleSnapshot } from './rule-snapshot.js';

const OUTAGE_MS = 30_000;
/** Generous: the informers' reconnect backoff, a relist and a sync on a loaded machine. */
const CATCH_UP_DEADLINE_MS = 20_000;

/** Polls (20 probes a round, bounded by `deadlineMs`) until only `servers` answer; ms it took. */
async function untilServers(lab: Lab, servers: readonly string[], deadlineMs: number): Promise<number> {
  const started = Date.now();
  let seen: string[] = [];
  while (Date.now() - started < deadlineMs) {
    const results = await lab.probeRepeatedly(
      lab.pod('pod-a'),
      { proto: 'tcp', ip: CLUSTER_IP, port: SERVICE_PORT, timeoutMs: 1_000 },
      20,
    );
    seen = [...new Set(results.map((r) => r.server ?? r.error ?? '?'))].sort();
    if (seen.join() === [...servers].sort().join()) return Date.now() - started;
  }
  throw new Error(`after ${deadlineMs} ms still ${seen.join(', ')}, wanted ${servers.join(', ')}`);
}

/** What the outage case measured; the test file states what must hold of it. */
export interface ApiOutageOutcome {
  /** Connections through the ClusterIP that failed, from before the outage until after the last change. */
  readonly failures: readonly unknown[];
  /** LISTs after the restart (the missed history was compacted: resuming must relist). */
  readonly relists: number;
  /** The program's rules after the changes, and those a fresh program wrote for the same API state. */
  readonly finalRules: string;
  readonly freshRules: string;
  readonly logs: string;
}

/** Resolves once `program` has completed a sync (bounded); ms it took. */
async function untilSynced(program: RunningProgram, deadlineMs: number): Promise<number> {
  const started = Date.now();
  while (Date.now() - started < deadlineMs) {
    const synced = await program.metricSum('kubeproxy_sync_proxy_rules_last_timestamp_seconds').catch(() => 0);
    if (synced > 0) return Date.now() - started;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(
    `the fresh ${program.name} never synced within ${deadlineMs} ms; logs:\n${program.logs().slice(-3000)}`,
  );
}

export async function describeApiOutage(name: ProgramName, verify: (outcome: ApiOutageOutcome) => void): Promise<void> {
  const e2e = await kernelE2e(`fault suite: ${name} API server outage`);
  describe.skipIf(!e2e.run)(`${name} keeps serving while the API server is down`, () => {
    let cluster: FaultCluster;
    beforeAll(async () => {
      cluster = await startFaultCluster(name, { syncPeriod: '2s', echoPods: ['pod-b', 'pod-c'] });
    });
    afterAll(() => cluster?.close());

    it('stopped 30 s with changes missed (410 Gone, relist): no connection fails, every change lands', async () => {
      const { lab, server, program } = cluster;
      const b = lab.pod('pod-b');
      const c = lab.pod('pod-c');
      const traffic = probeSteadily(lab.pod('pod-a').namespace, {
        ip: CLUSTER_IP,
        port: SERVICE_PORT,
        durationMs: 1_000 + OUTAGE_MS + 8_000,
      });
      traffic.catch(() => {}); // awaited below; a failure before that must not go unhandled
      await new Promise((r) => setTimeout(r, 1_000));
      await server.stop();
      const listsBefore = server.requests().filter((r) => r.verb === 'list').length;
      server.update(endpointSlice([b, c])); // missed by the program: its watches are cut
      server.compact(); // and the history is gone: resuming from its resourceVersion is 410 Gone
      const healthNot200: string[] = [];
      for (let waited = 0; waited < OUTAGE_MS; waited += 1_000) {
        const healthz = await fetch(program.healthzUrl, { signal: AbortSignal.timeout(1_000) }).catch(() => undefined);
        if (healthz?.status !== 200) healthNot200.push(String(healthz?.status ?? 'timeout'));
        await new Promise((r) => setTimeout(r, 1_000));
      }
      await server.restart();
      const restartSeq = server.requests().length;
      const missedMs = await untilServers(lab, ['pod-b', 'pod-c'], CATCH_UP_DEADLINE_MS).catch((e: Error) => {
        const after = server.requests().slice(restartSeq);
        const shown = after.map((r) => `${r.verb} ${r.path}?rv=${r.query['resourceVersion'] ?? ''} -> ${r.status}`);
        throw new Error(`${e.message}; requests after the restart:\n${shown.join('\n')}`);
      });
      server.update(endpointSlice([c]));
      const newMs = await untilServers(lab, ['pod-c'], CATCH_UP_DEADLINE_MS);
      const result = await traffic;
      const relists = server.requests().filter((r) => r.verb === 'list').length - listsBefore;
      const finalRules = await ruleSnapshot(lab.node.namespace, name);
      const logs = program.logs().slice(-3000);
      const fresh = await cluster.replaceProgram();
      const freshSyncMs = await untilSynced(fresh, CATCH_UP_DEADLINE_MS);
      const freshRules = await ruleSnapshot(lab.node.namespace, name);
      printFigure(name, 'API server down 30 s, 410 Gone, relist', {
        failed: `${result.failures.length}/${result.attempts}`,
        missedChangeAppliedAfterRestartMs: missedMs,
        newChangeAppliedMs: newMs,
        relists,
        healthzNot200DuringOutage: healthNot200.length === 0 ? 0 : healthNot200.join(','),
        freshProgramSyncedMs: freshSyncMs,
        rulesEqualFreshRender: finalRules === freshRules ? 'yes' : 'no',
      });
      // Both changes landed (untilServers above throws otherwise).
      verify({ failures: result.failures, relists, finalRules, freshRules, logs });
      // /healthz during the outage is a figure, not asserted: one non-200 was seen once under load
      // (kpng-iptables) and is not explained yet (see the note).
    }, 120_000);
  });
}
