import { describe, expect, it } from 'vitest';
import { nodeState } from './fixtures.js';
import { allFeatures } from './scenarios.js';

describe('allFeatures', () => {
  it('goes through core as intended (Local policies really are Local, both families present)', () => {
    const state = nodeState(allFeatures());
    const byName = new Map(state.services.map((s) => [s.name, s]));
    expect(byName.get('local')?.externalPolicyLocal).toBe(true);
    const local = byName.get('local')?.ports[0]?.endpoints.IPv4;
    expect(local?.external.map((e) => e.ip)).toEqual(['198.18.1.10']);
    expect(local?.cluster.map((e) => e.ip)).toEqual(['198.18.1.10', '198.18.2.10']);
    expect(byName.get('internal-none')?.ports[0]?.endpoints.IPv6?.internal).toEqual([]);
    expect(byName.get('internal-none')?.ports[0]?.endpoints.IPv6?.hasAnyEndpoints).toBe(true);
    expect(byName.get('empty')?.ports[0]?.endpoints.IPv4?.hasAnyEndpoints).toBe(false);
    expect(byName.get('lb')?.families.IPv6?.loadBalancerSourceRanges).toEqual(['2001:db8:ee::/64']);
  });
});
