import { createHash } from 'node:crypto';
import type { NodeLocalState } from '@kpng/core';
import { RecordingLogger } from '@kpng/core/testing';
import { IptablesBackend } from '@kpng/iptables';
import { FakeIptables } from '@kpng/iptables/testing';
import type { EndpointSliceObject } from '../kube/types.js';
import { coreOver, flipFirstEndpoint } from './kernel-helpers.js';
import { defineSuite } from './suite.js';

/**
 * What the iptables backend writes, not how fast: the SHA-256 of every restore input of a fixed
 * sequence of syncs over the in-memory iptables (a first full sync, six one-endpoint partial syncs,
 * a periodic full sync, a failed one and its retry), so a performance change can show that the
 * bytes the kernel gets did not change. `iptables.inputs.sha256` is the digest's first 48 bits
 * (the full digest is logged); `iptables.inputs.restores` how many inputs it covers.
 */
export default defineSuite({
  name: 'iptables-inputs',
  description: 'iptables backend: digest of the restore inputs of a fixed sequence of syncs (in memory)',
  scenarios: ['s1k', 's10k'],
  async run(ctx) {
    const objects = ctx.objects();
    const core = coreOver(objects);
    const fake = new FakeIptables({ flavour: 'legacy' });
    const backend = new IptablesBackend({
      flavour: 'legacy',
      execer: fake,
      conntrack: false,
      log: new RecordingLogger(),
    });
    await backend.setup();
    const digest = createHash('sha256');
    let restores = 0;
    const take = (): void => {
      for (const r of fake.restores.splice(0)) {
        digest.update(`${r.family}\n${r.input}\n--\n`);
        restores++;
      }
    };
    const full = (state: NodeLocalState, revision: number): Promise<unknown> =>
      backend.sync({ state, changes: { triggerTimes: new Map(), nodeChanged: true }, full: true, revision });
    let state = core.first.state;
    await full(state, 1);
    take();
    const slices = objects.endpointSlices.filter((s) => s.endpoints.length > 0);
    for (let i = 0; i < 6; i++) {
      const index = (i * 7919) % slices.length;
      const slice = flipFirstEndpoint(slices[index] as EndpointSliceObject);
      slices[index] = slice;
      const next = core.change(slice);
      state = next.state;
      await backend.sync({ state, changes: next.changes, full: false, revision: next.revision });
      take();
    }
    await full(state, 100);
    take();
    fake.failNextRestore();
    await full(state, 101).catch(() => undefined);
    take();
    await full(state, 102);
    take();
    const hex = digest.digest('hex');
    ctx.log(`iptables-inputs: ${restores} restore inputs, sha256 ${hex}`);
    ctx.reportValue('iptables.inputs.sha256', Number.parseInt(hex.slice(0, 12), 16), 'digest');
    ctx.reportValue('iptables.inputs.restores', restores, 'count');
  },
});
