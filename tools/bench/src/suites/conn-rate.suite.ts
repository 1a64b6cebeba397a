import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { ECHO_PORT, Lab } from '@kpng/lab';
import { SILENT_LOGGER } from '@kpng/core/testing';
import type { NodeLocalState } from '@kpng/core';
import { NftBackend } from '@kpng/nft';
import { createNftClient } from '@kpng/nftables';
import { rateFigures, roundOrder, type RateSample } from '../connrate/figures.js';
import { firstServices, TARGET_CLUSTER_IP, TARGET_PORT, withTarget } from '../connrate/objects.js';
import { garbageCollector } from '../runner/gc.js';
import { summarize } from '../runner/stats.js';
import { coreOver } from './kernel-helpers.js';
import { requireNamespaces } from './namespaces.js';
import { defineSuite, type SuiteContext } from './suite.js';

const CLIENT = fileURLToPath(new URL('../../scripts/conn-rate-client.mjs', import.meta.url));
const SMALL = 10;
const SETTLE_MS = 1_000;

/**
 * New-connection rate to one ClusterIP with the scenario loaded vs with 10 Services (target
 * >= 0.9x at s10k). The lab (a node namespace holding the rules, a client pod, a server pod with
 * the lab's echo server) and the nft backend programming the node; both clusters get one target
 * Service whose only endpoint is the server pod. Each round programs the scenario (full sync),
 * waits 1 s, times `scripts/conn-rate-client.mjs` in the client pod opening fresh TCP connections to the
 * ClusterIP for `--duration-ms` (default 3000, `--concurrency` at a time, default 8; a
 * connection counts when the server's answer arrives), then programs the 10-Service cluster and
 * times the same, in alternating order (`roundOrder`): `max(--runs, 3)` rounds, medians, each
 * round's ratio.
 * Figures: `conn-rate.loaded` / `conn-rate.small` (connections/s), `conn-rate.loaded.vs.small`
 * (median of the per-round ratios) and `.ratio-of-medians`; the same per second of the client's
 * CPU time (`.per-cpu-s`: user + system, the kernel's work on its packets included; scheduling
 * delay on a busy machine barely moves it); `conn-rate.load-1m`, the machine's
 * 1-minute load average over the samples.
 */
export default defineSuite({
  name: 'conn-rate',
  description: 'fresh TCP connections/s through one ClusterIP with the scenario loaded vs with 10 Services (nft)',
  scenarios: ['s1k', 's10k', 's10k-wide'],
  async run(ctx) {
    await requireNamespaces('conn-rate');
    const lab = await Lab.create({ pods: ['client', 'server'] });
    const onAbort = (): void => void lab.delete();
    ctx.signal.addEventListener('abort', onAbort, { once: true });
    try {
      await measureRates(ctx, lab);
    } finally {
      ctx.signal.removeEventListener('abort', onAbort);
      await lab.delete();
    }
  },
});

async function measureRates(ctx: SuiteContext, lab: Lab): Promise<void> {
  const server = lab.pod('server');
  const client = lab.pod('client');
  await lab.startEcho('server', [ECHO_PORT]);
  // Fresh connections by the ten thousand: a wide port range in the client's namespace (the
  // server closes first, so the client keeps no TIME_WAIT, but be safe).
  await client.namespace.sysctl({ 'net.ipv4.ip_local_port_range': '1024 65000', 'net.ipv4.tcp_tw_reuse': 1 });
  const objects = ctx.objects();
  const clusters = {
    loaded: coreOver(withTarget(objects, server.ipv4, ECHO_PORT)).first.state,
    small: coreOver(withTarget(firstServices(objects, SMALL), server.ipv4, ECHO_PORT)).first.state,
  };
  ctx.log(`conn-rate: ${clusters.loaded.services.length} vs ${clusters.small.services.length} Services on the node`);
  const nft = await createNftClient({ netns: lab.node.namespace.name });
  const durationMs = Number(ctx.options['duration-ms'] ?? 3000);
  const concurrency = Number(ctx.options['concurrency'] ?? 8);
  const samples: Record<keyof typeof clusters, RateSample[]> = { loaded: [], small: [] };
  const loads: number[] = [];
  try {
    const backend = new NftBackend({ nft, conntrack: false, log: SILENT_LOGGER });
    let revision = 0;
    const program = (state: NodeLocalState) =>
      backend.sync({
        state,
        changes: { triggerTimes: new Map(), nodeChanged: true },
        full: true,
        revision: ++revision,
      });
    const rounds = Math.max(ctx.runs, 3);
    for (let round = 0; round < rounds && !ctx.signal.aborted; round++) {
      for (const which of roundOrder(round)) {
        await program(clusters[which]);
        // Let the sync's aftermath settle (this process's garbage; nft and the kernel freeing the
        // previous rules) before the client runs.
        garbageCollector()?.();
        await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
        const probe = await lab.probe(client, {
          proto: 'tcp',
          ip: TARGET_CLUSTER_IP,
          port: TARGET_PORT,
          timeoutMs: 2_000,
        });
        if (!probe.ok || probe.server !== 'server')
          throw new Error(`the ClusterIP does not reach the server pod: ${JSON.stringify(probe)}`);
        const { stdout } = await client.namespace.exec(
          [
            process.execPath,
            CLIENT,
            TARGET_CLUSTER_IP,
            String(TARGET_PORT),
            String(durationMs),
            String(concurrency),
            'server',
          ],
          { timeoutMs: durationMs + 60_000 },
        );
        const result = JSON.parse(stdout) as RateSample & { wrong: number; errors: number; lastError?: string };
        if (result.wrong > 0 || result.errors > 0)
          ctx.log(`conn-rate: ${which}: ${result.wrong} wrong answers, ${result.errors} errors (${result.lastError})`);
        if (result.connections === 0) throw new Error(`no connection answered: ${stdout}`);
        samples[which].push(result);
        loads.push(loadavg()[0] ?? Number.NaN);
        ctx.log(
          `conn-rate: round ${round + 1}/${rounds} ${which}: ${Math.round((result.connections * 1000) / result.ms)}/s, ${Math.round((result.connections * 1000) / (result.cpuMs ?? Number.NaN))}/s of client CPU (load ${loads.at(-1)?.toFixed(2)})`,
        );
      }
    }
  } finally {
    await nft.close();
  }
  const f = rateFigures(samples.loaded, samples.small);
  const row = (metric: string, s: { n: number; p50: number; p99: number }, unit: string) =>
    ctx.report({ scenario: ctx.scenario, metric, value: s.p50, unit, n: s.n, p50: s.p50, p99: s.p99 });
  row('conn-rate.loaded', f.loaded, 'conn/s');
  row(`conn-rate.small`, f.small, 'conn/s');
  row('conn-rate.loaded.vs.small', f.pairRatios, 'x');
  ctx.reportValue('conn-rate.loaded.vs.small.ratio-of-medians', f.ratioOfMedians, 'x');
  if (f.perCpu) {
    row('conn-rate.loaded.per-cpu-s', f.perCpu.loaded, 'conn/s');
    row('conn-rate.small.per-cpu-s', f.perCpu.small, 'conn/s');
    row('conn-rate.loaded.vs.small.per-cpu-s', f.perCpu.pairRatios, 'x');
  }
  row('conn-rate.load-1m', summarize(loads), 'load');
}
