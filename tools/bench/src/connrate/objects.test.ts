import { describe, expect, it } from 'vitest';
import { generate } from '../scenarios/catalog.js';
import { scenarioViolations } from '../scenarios/invariants.js';
import { firstServices, TARGET_CLUSTER_IP, withTarget } from './objects.js';

const s1k = generate('s1k');

describe('firstServices', () => {
  it('keeps the first Services, exactly their slices, and every node', () => {
    const small = firstServices(s1k, 10);
    expect(small.services.map((s) => s.metadata.name)).toEqual(s1k.services.slice(0, 10).map((s) => s.metadata.name));
    const names = new Set(small.services.map((s) => s.metadata.name));
    expect(small.endpointSlices.length).toBeGreaterThanOrEqual(10);
    expect(small.endpointSlices.every((e) => names.has(e.metadata.labels?.['kubernetes.io/service-name'] ?? ''))).toBe(
      true,
    );
    expect(small.nodes).toBe(s1k.nodes);
  });
});

describe('withTarget', () => {
  it('adds one ClusterIP Service no other Service uses, with the pod as its only endpoint on the bench node', () => {
    const target = withTarget(s1k, '198.18.1.11', 8080);
    expect(target.services).toHaveLength(s1k.services.length + 1);
    expect(s1k.services.some((s) => s.spec.clusterIP === TARGET_CLUSTER_IP)).toBe(false);
    const slice = target.endpointSlices.at(-1)!;
    expect(slice.endpoints).toEqual([expect.objectContaining({ addresses: ['198.18.1.11'], nodeName: 'node-000' })]);
    expect(slice.ports).toEqual([{ name: 'http', protocol: 'TCP', port: 8080 }]);
    expect(scenarioViolations(target)).toEqual([]);
  });
});
