// The fault suite's API server outage (issue 15) for the IPVS backend: kpng-ipvs (the compiled
// program, bundled: kpng-ipvs-child.ts) reads the lab's fake API server on the guest's loopback and
// programs the lab's node namespace in the VM. The case of packages/kube-proxy/test/fault/
// api-outage-suite.ts: the API server stops for 30 s (every watch cut, connections refused); while it
// is down the EndpointSlice changes and the history is compacted, so the resumed watches get 410
// Gone and must relist. Throughout, pod-a opens a new connection to the ClusterIP every 20 ms: none
// may fail. After the restart the missed change, then a new one, must reach IPVS, and no update may
// be lost: a fresh kpng-ipvs (same flags, same API state) over the same node must find nothing to
// change, and the node's rules must be what they were.
import { probeSteadily } from '@kpng/lab';
import { CLUSTER_IP, endpointSlice, printFigure, SERVICE_PORT } from '@kpng/lab/fault';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApiCluster, type ApiCluster } from './api-cluster.js';
import { nodeRules } from './kpng-ipvs-child.js';

const PROGRAM = 'kpng-ipvs (VM, kernel 6.1)';
const OUTAGE_MS = 30_000;
/** Under emulation on a loaded host (figures are printed; no wall-clock assertion). */
const CATCH_UP_BUDGET_MS = 60_000;

describe('kpng-ipvs keeps serving while the API server is down (VM)', () => {
  let cluster: ApiCluster;

  /** Polls (20 connections a round, bounded) until exactly `pods` answer; ms it took. */
  const untilServers = async (pods: readonly string[]): Promise<number> => {
    const started = Date.now();
    let seen: string[] = [];
    while (Date.now() - started < CATCH_UP_BUDGET_MS) {
      const results = await cluster.lab.probeRepeatedly(
        cluster.lab.pod('pod-a'),
        { proto: 'tcp', ip: CLUSTER_IP, port: SERVICE_PORT, timeoutMs: 1_000 },
        20,
      );
      seen = [...new Set(results.map((r) => r.server ?? r.error ?? '?'))].sort();
      if (seen.join() === [...pods].sort().join()) return Date.now() - started;
    }
    throw new Error(`after ${CATCH_UP_BUDGET_MS} ms ${seen.join(', ')} answer, not ${pods.join(', ')}`);
  };

  beforeAll(async () => {
    cluster = await startApiCluster();
    printFigure(PROGRAM, 'start through the API server', {
      startToSyncedMs: cluster.startToSyncedMs,
      servingMs: await untilServers(['pod-b']),
    });
  });
  afterAll(() => cluster?.close());

  it('stopped 30 s with changes missed (410 Gone, relist): no connection fails, every change lands, nothing lost', async () => {
    const { lab, server } = cluster;
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
    server.update(endpointSlice([b, c])); // missed: the watches are cut
    server.compact(); // and the history is gone: resuming from the last resourceVersion is 410 Gone
    await new Promise((r) => setTimeout(r, OUTAGE_MS));
    await server.restart();
    const missedMs = await untilServers(['pod-b', 'pod-c']);
    server.update(endpointSlice([c]));
    const newMs = await untilServers(['pod-c']);
    const result = await traffic;
    const relists = server.requests().filter((r) => r.verb === 'list').length - listsBefore;
    const finalRules = await nodeRules(lab.node.namespace);
    const logs = cluster.program.logs().slice(-3_000);
    const freshSyncMs = await cluster.replaceProgram();
    const [freshOperations] = cluster.program.syncOperations();
    const freshRules = await nodeRules(lab.node.namespace);
    printFigure(PROGRAM, 'API server down 30 s, 410 Gone, relist', {
      failed: `${result.failures.length}/${result.attempts}`,
      missedChangeAppliedAfterRestartMs: missedMs,
      newChangeAppliedMs: newMs,
      relists,
      freshProgramSyncedMs: freshSyncMs,
      freshProgramIpvsOperations: freshOperations ?? -1,
      rulesEqualFreshRender: finalRules === freshRules ? 'yes' : 'no',
    });
    expect(result.failures, logs).toEqual([]);
    expect(relists, 'the compacted history makes the program relist').toBeGreaterThan(0);
    // No update lost: a fresh program over the same API state finds IPVS as it should be, and
    // rewrites the same nft tables and addresses.
    expect(finalRules).toContain(`${CLUSTER_IP}:${SERVICE_PORT}`);
    expect(freshOperations, 'the fresh program has nothing to change in IPVS').toBe(0);
    expect(freshRules).toEqual(finalRules);
  }, 300_000);
});
