import type { SyncRequest } from '@kpng/core';
import { RecordingLogger } from '@kpng/core/testing';
import { IptablesBackend, processExecer, type Execer, type IptablesFlavour } from '@kpng/iptables';
import { canCreateNamespaces, sweepLeftovers } from '@kpng/lab';
import type { EndpointSliceObject } from '../kube/types.js';
import { measurementOf } from '../runner/measure.js';
import { coreOver, flipFirstEndpoint, inNamespace, timed } from './kernel-helpers.js';
import { defineSuite } from './suite.js';

/**
 * The iptables backend on the real iptables, legacy and/or nft flavour, inside network namespaces
 * this suite creates and deletes (root only). Per flavour (PERFORMANCE.md's targets):
 * - `iptables.<flavour>.full-sync`: first full sync of an instance, state to rules applied;
 * - `iptables.<flavour>.reference.restore`: `iptables-restore --noflush` of the very input that
 *   sync wrote, alone, into a fresh namespace; `…full-sync.vs.restore`: the ratio of medians
 *   (target <= 1.2x on legacy);
 * - `iptables.<flavour>.partial-sync.one-endpoint`: one endpoint change from core's model to rules
 *   applied, over `--partials` changes (default 11; target <= 300 ms median at s10k on legacy);
 * - `…inside-restore`: the part of a sync spent in iptables-restore processes and the kernel.
 * Options: `--flavours=legacy,nft` (default `legacy,nft` at s1k, `legacy` above: iptables-nft does
 * not finish a kube-proxy-shaped s10k restore in 45 minutes), `--partials=N`.
 */
export default defineSuite({
  name: 'iptables',
  description:
    'iptables backend: full sync vs iptables-restore of the same input, partial sync, legacy and nft flavours',
  scenarios: ['s1k', 's10k'],
  async run(ctx) {
    const capability = await canCreateNamespaces();
    if (!capability.ok) throw new Error(`the iptables suite needs to create network namespaces: ${capability.reason}`);
    await sweepLeftovers();
    const objects = ctx.objects();
    const core = coreOver(objects);
    const first = core.first;
    const full = (revision: number): SyncRequest => ({
      state: first.state,
      changes: { triggerTimes: new Map(), nodeChanged: true },
      full: true,
      revision,
    });
    const defaultFlavours = ctx.scenario === 's1k' ? 'legacy,nft' : 'legacy';
    const flavours = String(ctx.options['flavours'] ?? defaultFlavours).split(',') as IptablesFlavour[];
    const partialCount = Number(ctx.options['partials'] ?? 11);
    ctx.log(
      `iptables: ${first.state.services.length} services on ${objects.benchNode}, flavours ${flavours.join(', ')}`,
    );

    // One list of slices across flavours: each change flips the current state of a slice.
    const slices = objects.endpointSlices.filter((s) => s.endpoints.length > 0);
    for (const flavour of flavours) {
      const totals: number[] = [];
      const inside: number[] = [];
      const partialsInside: number[] = [];
      const reference: number[] = [];
      const partials: number[] = [];
      let lines = 0;
      for (let run = 0; run < ctx.runs && !ctx.signal.aborted; run++) {
        // The restore inputs of the first full sync, per tool, replayed alone below.
        const inputs: { argv: readonly string[]; stdin: string }[] = [];
        let recording = true;
        let restoreMs = 0;
        const execer: Execer = {
          run: async (argv, stdin, signal) => {
            if (!argv.some((a) => a.endsWith('-restore'))) return processExecer.run(argv, stdin, signal);
            if (recording) inputs.push({ argv, stdin });
            const start = performance.now();
            const result = await processExecer.run(argv, stdin, signal);
            restoreMs += performance.now() - start;
            return result;
          },
        };
        await inNamespace(ctx, `ipt-bench-${flavour}-${run}`, async (ns) => {
          const backend = new IptablesBackend({
            flavour,
            netns: ns.name,
            execer,
            conntrack: false,
            log: new RecordingLogger(),
          });
          await backend.setup();
          totals.push(await timed(() => backend.sync(full(1))));
          inside.push(restoreMs);
          recording = false;
          lines = inputs.reduce((n, i) => n + i.stdin.split('\n').length, 0);
          if (run > 0) return;
          for (let i = 0; i < partialCount && !ctx.signal.aborted; i++) {
            const index = (i * 7919) % slices.length;
            const slice = flipFirstEndpoint(slices[index] as EndpointSliceObject);
            slices[index] = slice;
            restoreMs = 0;
            partials.push(
              await timed(async () => {
                const next = core.change(slice);
                await backend.sync({ state: next.state, changes: next.changes, full: false, revision: next.revision });
              }),
            );
            partialsInside.push(restoreMs);
          }
        });
        await inNamespace(ctx, `ipt-ref-${flavour}-${run}`, async (ns) => {
          reference.push(
            await timed(async () => {
              // The recorded argv starts with `ip netns exec <bench namespace>`: the tool and its flags follow.
              for (const input of inputs)
                await ns.exec(input.argv.slice(4), { input: input.stdin, timeoutMs: 3_600_000 });
            }),
          );
        });
      }
      const fullSync = measurementOf(`iptables.${flavour}.full-sync`, totals);
      const ref = measurementOf(`iptables.${flavour}.reference.restore`, reference);
      ctx.reportMeasurement(`iptables.${flavour}.full-sync`, fullSync);
      ctx.reportMeasurement(`iptables.${flavour}.reference.restore`, ref);
      ctx.reportMeasurement(`iptables.${flavour}.full-sync.inside-restore`, measurementOf('inside', inside));
      ctx.reportValue(`iptables.${flavour}.full-sync.lines`, lines, 'count');
      const ratio = fullSync.p50 / ref.p50;
      ctx.report({
        scenario: ctx.scenario,
        metric: `iptables.${flavour}.full-sync.vs.restore`,
        value: ratio,
        unit: 'x',
        n: 1,
        p50: ratio,
        p99: ratio,
      });
      if (partials.length > 0) {
        ctx.reportMeasurement(`iptables.${flavour}.partial-sync.one-endpoint`, measurementOf('partial', partials));
        ctx.reportMeasurement(
          `iptables.${flavour}.partial-sync.inside-restore`,
          measurementOf('inside', partialsInside),
        );
      }
    }
  },
});
