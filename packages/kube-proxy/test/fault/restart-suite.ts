// Fault suite, proxy `kill -9` and restart: the compat kube-proxy runs as a child process; while
// pod-a opens a new connection to the ClusterIP every 20 ms and keeps one connection open through
// it (exchanging a line every 100 ms), the proxy is killed with SIGKILL and started again. The rules
// are the kernel's, so no connection may fail and the held one keeps echoing; after the restart the
// rules must be what they were. A kernel shim on the child's PATH logs every rule write, so the test
// knows what the first sync after the restart wrote.
import { kernelE2e, probeSteadily, type HeldConnection, type NetworkNamespace } from '@kpng/lab';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLUSTER_IP, SERVICE_PORT } from '../objects.js';
import { HOLD_SERVICE_PORT, startChildCluster, type ChildCluster } from './child-cluster.js';
import { createKernelShim, type KernelShim } from './kernel-shim.js';
import { printFigure } from './run-case.js';

export type Mode = 'nftables' | 'iptables';
// Long enough to cover the restart and its first sync on a loaded machine (~2-8 s here).
const TRAFFIC_MS = 12_000;
const KILL_AFTER_MS = 1_500;

/** The rules as the kernel lists them, counters removed (they change with every packet). */
export async function ruleSnapshot(ns: NetworkNamespace, mode: Mode): Promise<string> {
  const argv = mode === 'nftables' ? ['nft', 'list', 'table', 'ip', 'kube-proxy'] : ['iptables-save'];
  const text = (await ns.exec(argv)).stdout;
  return text
    .split('\n')
    .filter((l) => !l.startsWith('#'))
    .map((l) => l.replace(/counter packets \d+ bytes \d+/g, 'counter').replace(/\[\d+:\d+\]/g, '[0:0]'))
    .join('\n');
}

/** Exchanges a line on `held` every 100 ms until `until` resolves; failures and the longest gap. */
async function keepExchanging(held: HeldConnection, until: Promise<unknown>) {
  let done = false;
  void until.finally(() => (done = true));
  const failures: string[] = [];
  let exchanges = 0;
  let last = Date.now();
  let maxGapMs = 0;
  for (let i = 0; !done && i < 1_000; i++) {
    const answer = await held.exchange(`line-${i}`).catch((e: Error) => `error ${e.message}`);
    if (answer.endsWith(`line-${i}`)) {
      exchanges++;
      maxGapMs = Math.max(maxGapMs, Date.now() - last);
      last = Date.now();
    } else failures.push(answer);
    await new Promise((r) => setTimeout(r, 100));
  }
  return { exchanges, failures, maxGapMs };
}

export async function describeRestart(mode: Mode, syncPeriod: string): Promise<void> {
  const name = `kube-proxy ${mode}`;
  const e2e = await kernelE2e(`fault suite: ${name} kill -9 and restart`);
  describe.skipIf(!e2e.run)(`${name} (child process) killed with SIGKILL and restarted under traffic`, () => {
    let cluster: ChildCluster;
    let shim: KernelShim;
    beforeAll(async () => {
      shim = await createKernelShim();
      cluster = await startChildCluster({ mode, syncPeriod, pathPrefix: shim.dir });
    }, 60_000);
    afterAll(async () => {
      await cluster?.close();
      await shim?.remove();
    });

    it('no new connection fails, the held one keeps echoing, the rules are the same after', async () => {
      const { lab, proxy } = cluster;
      const ns = lab.node.namespace;
      const held = await lab.hold(lab.pod('pod-a'), { ip: CLUSTER_IP, port: HOLD_SERVICE_PORT });
      try {
        // Let the start-up syncs settle, so "before" is the steady state.
        await new Promise((r) => setTimeout(r, 1_000));
        const before = await ruleSnapshot(ns, mode);
        const traffic = probeSteadily(lab.pod('pod-a').namespace, {
          ip: CLUSTER_IP,
          port: SERVICE_PORT,
          durationMs: TRAFFIC_MS,
        });
        traffic.catch(() => {}); // awaited below
        const exchanging = keepExchanging(held, traffic);
        await new Promise((r) => setTimeout(r, KILL_AFTER_MS));
        await proxy.kill9();
        const writesAtKill = (await shim.writes()).length;
        const restartedAt = Date.now();
        proxy.start();
        let firstSyncMs = -1;
        for (let i = 0; i < 150 && firstSyncMs < 0; i++) {
          if ((await proxy.metricSum('kubeproxy_sync_proxy_rules_last_timestamp_seconds')) > 0)
            firstSyncMs = Date.now() - restartedAt;
          else await new Promise((r) => setTimeout(r, 100));
        }
        const firstSyncWrites = (await shim.writes()).slice(writesAtKill);
        const result = await traffic;
        const held_ = await exchanging;
        const after = await ruleSnapshot(ns, mode);
        printFigure(name, 'kill -9 and restart (child process)', {
          failed: `${result.failures.length}/${result.attempts}`,
          heldExchanges: held_.exchanges,
          heldFailures: held_.failures.length,
          heldMaxGapMs: held_.maxGapMs,
          restartToFirstSyncMs: firstSyncMs,
          writesByFirstSync: firstSyncWrites.length,
          rulesIdentical: before === after ? 'yes' : 'no',
        });
        const logs = proxy.logs().slice(-3_000);
        expect(firstSyncMs, logs).toBeGreaterThan(0);
        expect(result.failures, logs).toEqual([]);
        expect(held_.failures).toEqual([]);
        expect(held_.exchanges).toBeGreaterThan(10);
        expect(after).toEqual(before);
        // What the first sync after the restart wrote (see the suite's header).
        expect(firstSyncWrites.length, firstSyncWrites.join('\n')).toBe(FIRST_SYNC_WRITES[mode].length);
        FIRST_SYNC_WRITES[mode].forEach((pattern, i) => expect(firstSyncWrites[i]).toMatch(pattern));
      } finally {
        await held.close();
      }
    }, 60_000);
  });
}

/**
 * A restarted proxy knows nothing of what it wrote before, so its first sync is a full one: it
 * rewrites its rules in one atomic transaction per family (nft: `delete table` and the whole table
 * again in one `nft -f`; iptables: `iptables-restore` of every KUBE chain), as upstream's do. Atomic
 * means no packet sees a half-written table: the traffic assertions above are the proof, and the
 * rules listed after are identical to those before. Before it, the compat kube-proxy's start-up
 * removes what the other modes may have left (nftables mode: the ipvs mode's `kpng-ipvs` table;
 * iptables mode: the nft tables `kube-proxy` and `kpng`), writes too, none touching its own rules.
 * Each expected write is a pattern its log line matches, in order.
 */
const FIRST_SYNC_WRITES: Record<Mode, readonly RegExp[]> = {
  nftables: [/^nft pass -f - .*delete table ip kpng-ipvs/, /^nft pass -f - .*delete table ip kube-proxy;/],
  iptables: [
    /^nft pass -f - .*delete table ip kube-proxy;/,
    /^nft pass -f - .*delete table ip kpng;/,
    /^iptables-restore pass .*--noflush .*KUBE-SERVICES/,
    /^ip6tables-restore pass .*--noflush .*KUBE-SERVICES/,
  ],
};
