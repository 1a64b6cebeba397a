import { allFeatures, fullSyncRequest, nodeState, partialSyncRequest, RecordingLogger } from '@kpng/core/testing';
import { describe, expect, it } from 'vitest';
import { FakeIptables } from '../iptables/fake/fake-iptables.js';
import { IptablesBackend } from './iptables-backend.js';

function setup() {
  const fake = new FakeIptables({ flavour: 'legacy' });
  const backend = new IptablesBackend({
    execer: fake,
    conntrack: false,
    log: new RecordingLogger(),
    families: ['IPv4'],
  });
  return { fake, backend };
}

/** What another program does to the fake kernel (upstream's iptables-save is the reference). */
const cases: ReadonlyArray<{ name: string; kind: string; vandal: (fake: FakeIptables) => void }> = [
  {
    name: 'the canary chain deleted (a flush of every table)',
    kind: 'table',
    vandal: (fake) => fake.removeChain('IPv4', 'mangle', 'KUBE-PROXY-CANARY'),
  },
  {
    name: 'nat flushed (iptables -t nat -F)',
    kind: 'rule',
    vandal: (fake) => {
      for (const chain of fake.tables('IPv4').get('nat')?.values() ?? []) chain.rules = [];
    },
  },
  {
    name: 'one jump deleted (filter FORWARD -> KUBE-FORWARD)',
    kind: 'rule',
    vandal: (fake) => {
      const forward = fake.tables('IPv4').get('filter')?.get('FORWARD');
      if (forward) forward.rules = forward.rules.filter((r) => !r.includes('KUBE-FORWARD'));
    },
  },
];

describe('IptablesBackend drift (another program changed our rules)', () => {
  it('check() finds nothing on intact rules, before or after a sync, and writes nothing', async () => {
    const { fake, backend } = setup();
    expect(await backend.check()).toEqual([]);
    await backend.sync(fullSyncRequest(nodeState(allFeatures())));
    const restores = fake.restores.length;
    expect(await backend.check()).toEqual([]);
    expect(fake.restores).toHaveLength(restores);
  });

  it.each(cases)('check() finds $name; the next sync restores in full and reports it', async ({ kind, vandal }) => {
    const { fake, backend } = setup();
    await backend.sync(fullSyncRequest(nodeState(allFeatures())));
    // The same rules; a re-inserted jump may sit elsewhere among the built-in chain's rules.
    const saved = () => [...fake.save('IPv4', 'nat').split('\n'), ...fake.save('IPv4', 'filter').split('\n')].sort();
    const intact = saved();
    vandal(fake);
    expect(await backend.check()).toEqual([kind]);
    // Even a partial request: the backend no longer trusts what it knew of the kernel.
    expect(await backend.sync(partialSyncRequest(nodeState(allFeatures()), [], 2))).toEqual({ repaired: [kind] });
    expect(saved()).toEqual(intact);
    expect(await backend.check()).toEqual([]);
    expect(await backend.sync(partialSyncRequest(nodeState(allFeatures()), [], 3))).toEqual({});
  });
});
