import { describe, expect, it } from 'vitest';
import { FakeHns } from '../hcn/fake/fake-hns.js';
import { VERIFY_CASES } from './cases.js';
import { agrees, runVerification } from './run.js';

describe('fake HNS: the Windows verification cases', () => {
  it('every case holds against the fake, round trips included, and the run leaves nothing behind', async () => {
    const hns = new FakeHns();
    const net = hns.addNetwork({ name: 'cbr0', type: 'L2Bridge' });
    const endpointId = hns.addLocalEndpoint(net, '198.18.1.10');
    const results = await runVerification(hns, { endpointId, vips: ['203.0.113.200', '203.0.113.201'], port: 64990 });
    expect(results.filter((r) => !agrees(r))).toEqual([]);
    expect(results).toHaveLength(VERIFY_CASES.length);
    expect(results.filter((r) => r.expected === 0).length).toBeGreaterThanOrEqual(8);
    expect(hns.loadBalancers()).toEqual([]);
  });

  it('a disagreement is reported, not hidden', async () => {
    const hns = new FakeHns();
    const net = hns.addNetwork({ name: 'cbr0', type: 'L2Bridge' });
    const endpointId = hns.addLocalEndpoint(net, '198.18.1.10');
    const [first] = VERIFY_CASES;
    const results = await runVerification(hns, { endpointId, vips: ['203.0.113.200', '203.0.113.201'], port: 64990 }, [
      { ...first!, expected: 0x803b0013 },
    ]);
    expect(results.map(agrees)).toEqual([false]);
  });
});
