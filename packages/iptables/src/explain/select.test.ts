// `explain` for the iptables backend against what the backend itself rendered: the in-memory
// iptables (which parses every restore as the real tool does) programmed with the shared
// every-feature state, then dumped as `iptables-save` prints it.
import { allFeatures, fullSyncRequest, nodeState, RecordingLogger } from '@kpng/core/testing';
import { Registry } from 'prom-client';
import { beforeAll, describe, expect, it } from 'vitest';
import { IptablesBackend } from '../backend/iptables-backend.js';
import { FakeIptables } from '../iptables/fake/fake-iptables.js';
import { servicePortChains } from '../render/names.js';
import { selectServiceRules } from './select.js';

describe('selectServiceRules', () => {
  let save: string;
  beforeAll(async () => {
    const fake = new FakeIptables({ flavour: 'legacy' });
    const backend = new IptablesBackend({
      execer: fake,
      conntrack: false,
      metrics: new Registry(),
      log: new RecordingLogger(),
      families: ['IPv4'],
    });
    await backend.sync(fullSyncRequest(nodeState(allFeatures())));
    save = fake.save('IPv4');
  });

  it("prints the Service's entry points, its service chains and its endpoint chains", () => {
    const web = servicePortChains('default/web', { protocol: 'TCP' } as never);
    const sections = selectServiceRules(save, { namespace: 'default', name: 'web' });
    const titles = sections.map((s) => s.title);
    expect(titles[0]).toBe('service entry points');
    const entries = sections[0]!.lines.map((l) => l.text);
    expect(entries.some((t) => t.startsWith('-A KUBE-SERVICES ') && t.includes(`-j ${web.cluster}`))).toBe(true);
    expect(entries.some((t) => t.startsWith('-A KUBE-NODEPORTS ') && t.includes('--dport 30080'))).toBe(true);
    expect(titles).toContain(`service chain nat ${web.cluster}`);
    expect(titles).toContain(`service chain nat ${web.external}`);
    const endpointChains = titles.filter((t) => t.startsWith('endpoint chain nat KUBE-SEP-'));
    expect(endpointChains).toHaveLength(2);
    const seps = sections
      .filter((s) => s.title.startsWith('endpoint chain'))
      .flatMap((s) => s.lines.map((l) => l.text));
    expect(seps.filter((t) => t.includes('-j DNAT'))).toHaveLength(2);
    // Every line is the Service's own: none names another Service's chains or comment.
    const other = servicePortChains('default/dns', { protocol: 'UDP' } as never);
    expect(sections.flatMap((s) => s.lines.map((l) => l.text)).some((t) => t.includes(other.cluster))).toBe(false);
  });

  it('selects by the whole name: `lb` is not `lb-closed`, and an absent Service selects nothing', () => {
    const lb = selectServiceRules(save, { namespace: 'default', name: 'lb' });
    expect(lb.length).toBeGreaterThan(0);
    expect(lb.flatMap((s) => s.lines.map((l) => l.text)).some((t) => t.includes('lb-closed'))).toBe(false);
    expect(selectServiceRules(save, { namespace: 'default', name: 'gone' })).toEqual([]);
    expect(selectServiceRules(save, { namespace: 'other', name: 'web' })).toEqual([]);
  });

  it("reads `iptables-save -c` counters into each line's packets and bytes", () => {
    const counted = save.replace(/^-A /gm, '[7:420] -A ');
    const lines = selectServiceRules(counted, { namespace: 'default', name: 'web' }).flatMap((s) => s.lines);
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.every((l) => l.packets === 7 && l.bytes === 420 && l.text.startsWith('-A '))).toBe(true);
  });
});
