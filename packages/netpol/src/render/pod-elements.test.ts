import { podKey, type PodPolicy, type PolicyState } from '@kpng/core';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { renderElements } from './elements.js';
import { PodElements } from './pod-elements.js';

const policies: readonly PodPolicy['ingress'][] = [
  { isolated: false, allow: [] },
  { isolated: true, allow: [] },
  { isolated: true, allow: [{ peers: ['198.18.1.0/24'], ports: [{ protocol: 'TCP', port: 80, endPort: 90 }] }] },
  { isolated: true, allow: [{ peers: ['198.18.1.11'] }, { ports: [{ protocol: 'UDP', port: 53, endPort: 53 }] }] },
];

/** Pods p0..p3; p3 reuses p0's IP (a pod replaced while the old one is still listed). */
function state(choices: readonly (number | undefined)[]): PolicyState {
  const pods = new Map<ReturnType<typeof podKey>, PodPolicy>();
  choices.forEach((choice, i) => {
    if (choice === undefined) return;
    const ip = `198.18.1.${10 + (i % 3)}`;
    pods.set(podKey('ns', `p${i}`), {
      namespace: 'ns',
      name: `p${i}`,
      ips: [ip],
      ingress: policies[choice]!,
      egress: policies[(choice + 1) % 4]!,
    });
  });
  return { pods };
}

function ids(elements: readonly { set: string; key: readonly string[] }[]): string[] {
  return elements.map((e) => `${e.set} ${e.key.join(' . ')}`).sort();
}

describe('PodElements', () => {
  test('property: applying every delta gives exactly the full render of the last state', () => {
    const choice = fc.option(fc.integer({ min: 0, max: 3 }), { nil: undefined });
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.array(choice, { minLength: 4, maxLength: 4 }), fc.boolean()), { maxLength: 8 }),
        (steps) => {
          const tracked = new PodElements(['IPv4']);
          const kernel = new Set<string>();
          let last: PolicyState = { pods: new Map() };
          for (const [choices, committed] of steps) {
            const next = state(choices);
            const { delta, commit } = tracked.update(next);
            if (!committed) continue; // a failed apply: nothing reached the kernel
            for (const id of ids(delta.delete)) expect(kernel.delete(id)).toBe(true);
            for (const id of ids(delta.add)) {
              expect(kernel.has(id)).toBe(false);
              kernel.add(id);
            }
            commit();
            last = next;
          }
          const full = [...renderElements(last, ['IPv4'])].flatMap(([set, byId]) =>
            [...byId.values()].map((key) => ({ set, key })),
          );
          expect([...kernel].sort()).toEqual(ids(full));
          expect(ids(tracked.all())).toEqual(ids(full));
        },
      ),
      { numRuns: 300 },
    );
  });
});
