import { describe, expect, it } from 'vitest';
import { nodeState } from '../testing/fixtures.js';
import { resolveConfig } from './config.js';
import { renderContext } from './context.js';
import { MAP_NAMES, skeletonChains, skeletonSets } from './skeleton.js';

describe('skeleton', () => {
  const node = nodeState([]).node;

  it('MAP_NAMES lists exactly the maps it declares', () => {
    const ctx = renderContext(resolveConfig(), 'IPv4', node);
    expect(
      new Set(
        skeletonSets(ctx)
          .filter((s) => s.kind === 'map')
          .map((s) => s.name),
      ),
    ).toEqual(MAP_NAMES);
  });

  it('hooks every base chain kube-proxy uses, at its priority', () => {
    const ctx = renderContext(resolveConfig(), 'IPv6', node);
    const bases = skeletonChains(ctx)
      .filter((c) => c.base !== undefined)
      .map((c) => `${c.name} ${c.base?.type} ${c.base?.hook} ${c.base?.priority}`);
    expect(bases).toEqual([
      'filter-prerouting filter prerouting -110',
      'filter-input filter input -110',
      'filter-forward filter forward -110',
      'filter-output filter output -110',
      'filter-output-post-dnat filter output -90',
      'nat-prerouting nat prerouting -100',
      'nat-output nat output -100',
      'nat-postrouting nat postrouting 100',
    ]);
  });

  it('uses the configured masquerade bit', () => {
    const ctx = renderContext(resolveConfig({ masqueradeBit: 3 }), 'IPv4', node);
    const rules = skeletonChains(ctx).flatMap((c) => c.rules);
    expect(rules).toContain('meta mark set meta mark or 0x8');
    expect(rules).toContain('meta mark & 0x8 == 0 return');
  });
});
