// Names can never inject iptables syntax, checked by the kernel's own parser: the restore inputs
// of fuzzed Services (test/support/fuzz.ts) each pass `iptables-restore --test` and then load for
// real, on iptables-legacy and iptables-nft, both families, inside a namespace this file creates.
import { nodeState } from '@kpng/core/testing';
import { createNamespace, kernelE2e, sweepLeftovers, type NetworkNamespace } from '@kpng/lab';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IptablesBackend } from '../src/backend/iptables-backend.js';
import { fuzzedServices } from './support/fuzz.js';
import { E2E_CONFIG, FLAVOURS, fullSync, testingFirstExecer } from './e2e-helpers.js';

const e2e = await kernelE2e('iptables backend: fuzzed names');

describe.skipIf(!e2e.run)('fuzzed names through the real iptables-restore', () => {
  let ns: NetworkNamespace;
  beforeAll(async () => {
    await sweepLeftovers();
    ns = await createNamespace('ipt-fuzz');
  });
  afterAll(async () => {
    await ns?.delete();
  });

  it.each(FLAVOURS)('iptables-%s: every restore input passes --test, then loads', async (flavour) => {
    const tested: string[] = [];
    const execer = testingFirstExecer(tested);
    const backend = new IptablesBackend({ ...E2E_CONFIG, flavour, netns: ns.name, execer, conntrack: false });
    for (const seed of [11, 12, 13]) await backend.sync(fullSync(nodeState(fuzzedServices(seed)), seed));
    expect(tested.length).toBeGreaterThanOrEqual(6);
    await backend.cleanup();
  });
});
