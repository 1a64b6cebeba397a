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
 * `iptables.inputs.canonical.sha256` digests what the kernel ends up with instead of the bytes:
 * each input with its tables in name order and, per table, its chain declarations and `-X` lines
 * sorted and its `-A`/`-I` rules grouped by chain (each chain's rules in their order), so a change
 * that only reorders tables, or interleaves the appends of different chains, keeps it.
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
    const canonicalDigest = createHash('sha256');
    let restores = 0;
    const take = (): void => {
      for (const r of fake.restores.splice(0)) {
        digest.update(`${r.family}\n${r.input}\n--\n`);
        canonicalDigest.update(`${r.family}\n${canonical(r.input)}\n--\n`);
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
    const canonicalHex = canonicalDigest.digest('hex');
    ctx.log(`iptables-inputs: ${restores} restore inputs, sha256 ${hex}, canonical sha256 ${canonicalHex}`);
    ctx.reportValue('iptables.inputs.sha256', Number.parseInt(hex.slice(0, 12), 16), 'digest');
    ctx.reportValue('iptables.inputs.canonical.sha256', Number.parseInt(canonicalHex.slice(0, 12), 16), 'digest');
    ctx.reportValue('iptables.inputs.restores', restores, 'count');
  },
});

/**
 * A restore input as what it does: tables by name; per table its declarations and deletions
 * sorted, and its rules per chain in input order (iptables-restore applies a table at its
 * `COMMIT`, and appends to different chains commute).
 */
export function canonical(input: string): string {
  const tables: string[] = [];
  let lines: string[] = [];
  for (const line of input.split('\n')) {
    if (line === '') continue;
    lines.push(line);
    if (line === 'COMMIT') {
      tables.push(canonicalTable(lines));
      lines = [];
    }
  }
  if (lines.length > 0) tables.push(canonicalTable(lines));
  return tables.sort().join('');
}

function canonicalTable(lines: readonly string[]): string {
  const declared: string[] = [];
  const deleted: string[] = [];
  const rules = new Map<string, string[]>();
  let head = '';
  for (const line of lines) {
    if (line.startsWith('*')) head = line;
    else if (line.startsWith(':')) declared.push(line);
    else if (line.startsWith('-X ')) deleted.push(line);
    else if (line !== 'COMMIT') {
      const chain = `${line.split(' ', 2).join(' ')}`;
      const list = rules.get(chain) ?? [];
      list.push(line);
      rules.set(chain, list);
    }
  }
  const grouped = [...rules.keys()].sort().flatMap((chain) => rules.get(chain) ?? []);
  return [head, ...declared.sort(), ...grouped, ...deleted.sort(), 'COMMIT', ''].join('\n');
}
