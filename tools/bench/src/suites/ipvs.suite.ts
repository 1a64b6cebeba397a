import { mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { NodeView } from '@kpng/core/runtime';
import { nodeName, type LocalService, type NodeLocalState } from '@kpng/core';
import { jobMount, runInVm, VM_INPUTS_ENV } from '@kpng/lab';
import type { EndpointSliceObject } from '../kube/types.js';
import { type IpvsBenchInput, type IpvsBenchResult, RESULT_MARKER } from '../ipvs/guest-input.js';
import { measurementOf } from '../runner/measure.js';
import { flipFirstEndpoint, sliceEvent, toModelEvents } from '../scenarios/model-events.js';
import { defineSuite } from './suite.js';

const GUEST = fileURLToPath(new URL('../ipvs/guest-bench.ts', import.meta.url));
const HOOKS = fileURLToPath(new URL('../../scripts/register-ts.mjs', import.meta.url));

/**
 * The IPVS backend in the lab's VM (Debian 6.1 under TCG: this machine's kernel has no IPVS), and
 * the nft backend in the same VM as the reference, so emulation cancels out of the ratios:
 * - `ipvs.full-sync`, `ipvs.partial-sync.one-endpoint` (median over `--partials`, default 11);
 * - `nft.vm.full-sync`, `nft.vm.partial-sync.one-endpoint`: the same scenario through the nft backend;
 * - `ipvs.full-sync.vs.nft`, `ipvs.partial-sync.vs.nft`: ratios of the medians.
 * States are computed here (core under emulation costs minutes) and handed over as JSON.
 * Options: `--partials=N`, `--kernel=6.1|6.12`, `--timeout-min=N` (the VM's limit, default 60; s10k under
 * TCG needs more). The guest prints each figure as it goes (`bench progress:` on stderr).
 */
export default defineSuite({
  name: 'ipvs',
  description: 'ipvs backend in the lab VM: full and one-endpoint syncs, as ratios to the nft backend in the same VM',
  scenarios: ['s1k', 's10k'],
  async run(ctx) {
    const objects = ctx.objects();
    const core = new NodeView({ nodeName: nodeName(objects.benchNode), turnBudgetMs: Infinity });
    let published: NodeLocalState | undefined;
    let updated: ReadonlySet<string> | undefined;
    core.addLocalConsumer({
      publish: (state, changes) => void ((published = state), (updated = changes.updatedServices)),
    });
    core.model.apply(toModelEvents(objects));
    for (const kind of ['Service', 'EndpointSlice', 'Node'] as const) core.model.synced(kind);
    const first = published;
    if (first === undefined) throw new Error('core published no state');
    const changes: LocalService[][] = [];
    const slices = objects.endpointSlices.filter((s) => s.endpoints.length > 0);
    for (let i = 0; i < Number(ctx.options['partials'] ?? 11); i++) {
      const index = (i * 7919) % slices.length;
      const current = slices[index] as EndpointSliceObject;
      const slice = flipFirstEndpoint(current);
      slices[index] = slice;
      published = undefined;
      core.model.apply([sliceEvent(slice)]);
      const next = published as NodeLocalState | undefined;
      if (next === undefined) throw new Error('core published nothing for an endpoint change');
      changes.push(next.services.filter((s) => updated?.has(s.key) ?? true));
    }
    const input: IpvsBenchInput = { runs: ctx.runs, first, changes };
    ctx.log(`ipvs: ${first.services.length} services, ${changes.length} one-endpoint changes; booting the VM`);
    const kernel = ctx.options['kernel'] === '6.12' ? '6.12' : '6.1';
    const run = await runInVm({
      kernel,
      command: [process.execPath, '--import', HOOKS, GUEST],
      cwd: fileURLToPath(new URL('../..', import.meta.url)),
      timeoutMs: Number(ctx.options['timeout-min'] ?? 60) * 60_000,
      memoryMiB: 2048,
      prepare: (jobDir) => writeInputs(jobDir, JSON.stringify(input)),
      env: { [VM_INPUTS_ENV]: `${jobMount}/inputs` },
      onOutput: (chunk) => process.stderr.write(chunk),
    });
    const line = run.output.split('\n').find((l) => l.startsWith(RESULT_MARKER));
    if (run.exitCode !== 0 || line === undefined)
      throw new Error(`the guest bench failed (exit ${run.exitCode}):\n${run.output.slice(-2000)}`);
    const result = JSON.parse(line.slice(RESULT_MARKER.length)) as IpvsBenchResult;
    const report = (metric: string, values: number[]) => {
      const m = measurementOf(metric, values);
      ctx.reportMeasurement(metric, m);
      return m;
    };
    const ipvsFull = report('ipvs.full-sync', result.ipvs.full);
    const ipvsPartial = report('ipvs.partial-sync.one-endpoint', result.ipvs.partial);
    const nftFull = report('nft.vm.full-sync', result.nft.full);
    const nftPartial = report('nft.vm.partial-sync.one-endpoint', result.nft.partial);
    ctx.reportValue('ipvs.virtual-servers', result.ipvs.virtualServers, 'count');
    for (const [metric, a, b] of [
      ['ipvs.full-sync.vs.nft', ipvsFull, nftFull],
      ['ipvs.partial-sync.vs.nft', ipvsPartial, nftPartial],
    ] as const) {
      const ratio = a.p50 / b.p50;
      ctx.report({ scenario: ctx.scenario, metric, value: ratio, unit: 'x', n: 1, p50: ratio, p99: ratio });
    }
  },
});

function writeInputs(jobDir: string, json: string): void {
  mkdirSync(`${jobDir}/inputs`, { recursive: true });
  writeFileSync(`${jobDir}/inputs/bench.json`, json);
}
