import { describe, expect, it } from 'vitest';
import { FakeIpvs } from './fake-ipvs.js';
import { IPVS_CASES, runIpvsCase, VS4 } from './ipvs-cases.js';

// The same cases run on the real kernel in the lab's VM (test/guest/seam.guest.ts).
describe('FakeIpvs answers like the kernel', () => {
  it.each(IPVS_CASES.map((c) => [c.name, c] as const))('%s', (_name, c) => {
    expect(runIpvsCase(new FakeIpvs(), c)).toEqual(c.expected);
  });
});

describe('FakeIpvs test hooks', () => {
  it('records mutating calls and injects a kernel error on the next matching call', () => {
    const fake = new FakeIpvs();
    fake.failNext('addVirtualServer', 12);
    expect(() => fake.addVirtualServer(VS4)).toThrow(expect.objectContaining({ code: 'ENOMEM' }));
    fake.addVirtualServer(VS4);
    expect(fake.calls).toEqual([
      { op: 'addVirtualServer', vs: 'TCP/198.19.0.10/80' },
      { op: 'addVirtualServer', vs: 'TCP/198.19.0.10/80' },
    ]);
    expect(fake.listVirtualServers()).toEqual([VS4]);
  });
});
