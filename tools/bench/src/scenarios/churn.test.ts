import { describe, expect, it } from 'vitest';
import { TRIGGER_TIME_ANNOTATION, type EndpointSliceObject } from '../kube/types.js';
import { generate } from './catalog.js';
import { createChurn, type ChurnStep } from './churn.js';
import { scenarioViolations } from './invariants.js';
import { scenario } from './scenario.js';

const drain = (churn: ReturnType<typeof createChurn>): ChurnStep[] => {
  const steps: ChurnStep[] = [];
  for (let step = churn.next(); step; step = churn.next()) steps.push(step);
  return steps;
};

describe('createChurn on s10k (the churn scenario)', () => {
  const s10k = generate('churn');
  const pristine = JSON.stringify(s10k);
  const churn = createChurn(s10k);
  const before = new Map(s10k.endpointSlices.map((sl) => [sl.metadata.name, sl]));
  const steps = drain(churn);

  it('holds 100 changes per second for 60 s, then ends', () => {
    expect(churn.total).toBe(6_000);
    expect(churn.intervalMs).toBe(10);
    expect(steps.length).toBe(6_000);
    expect(churn.next()).toBeUndefined();
    expect(steps[1]?.offsetMs).toBe(10);
    expect(steps[5_999]?.offsetMs).toBe(59_990);
  });

  it('is the same sequence every time', () => {
    // The draw does not depend on the length: a shorter run is a prefix of the full one.
    const again = drain(createChurn(generate('churn'), { durationSeconds: 10 }));
    expect(JSON.stringify(again)).toBe(JSON.stringify(steps.slice(0, 1_000)));
    const other = drain(createChurn(s10k, { seed: 99, durationSeconds: 1 }));
    expect(JSON.stringify(other)).not.toBe(JSON.stringify(steps.slice(0, 100)));
  });

  it('never mutates the scenario it started from', () => {
    expect(JSON.stringify(s10k)).toBe(pristine);
  });

  it('stamps each slice with its own trigger time and a newer resourceVersion', () => {
    let lastVersion = Math.max(...s10k.endpointSlices.map((sl) => Number(sl.metadata.resourceVersion)));
    for (const step of steps) {
      expect(step.slice.metadata.annotations?.[TRIGGER_TIME_ANNOTATION]).toBe(step.triggerTime);
      expect(Date.parse(step.triggerTime)).toBe(Date.parse('2025-01-01T00:01:00Z') + Math.round(step.offsetMs));
      const version = Number(step.slice.metadata.resourceVersion);
      expect(version).toBeGreaterThan(lastVersion);
      lastVersion = version;
    }
  });

  it('does each kind of change, and only that change', () => {
    const current = new Map(before);
    const seen = new Set<string>();
    for (const step of steps) {
      seen.add(step.kind);
      const prev = current.get(step.slice.metadata.name);
      current.set(step.slice.metadata.name, step.slice);
      const after = step.slice.endpoints;
      if (step.created) {
        expect(prev).toBeUndefined();
        expect(step.kind).toBe('scale-up');
        expect(after.length).toBe(1);
        continue;
      }
      const was = (prev as EndpointSliceObject).endpoints;
      expect(step.slice.metadata.generation).toBe(((prev as EndpointSliceObject).metadata.generation ?? 1) + 1);
      const addressesBefore = new Set(was.map((e) => e.addresses[0]));
      const addressesAfter = new Set(after.map((e) => e.addresses[0]));
      switch (step.kind) {
        case 'scale-up':
          expect(after.length).toBe(was.length + 1);
          expect([...addressesBefore].every((a) => addressesAfter.has(a))).toBe(true);
          break;
        case 'scale-down':
          expect(after.length).toBe(was.length - 1);
          expect([...addressesAfter].every((a) => addressesBefore.has(a))).toBe(true);
          break;
        case 'ready-flip': {
          expect(after.map((e) => e.addresses[0])).toEqual(was.map((e) => e.addresses[0]));
          const flipped = after.filter((e, i) => e.conditions.ready !== was[i]?.conditions.ready);
          expect(flipped.length).toBe(1);
          break;
        }
        case 'ip-change': {
          expect(after.length).toBe(was.length);
          const changed = after.filter((e, i) => e.addresses[0] !== was[i]?.addresses[0]);
          expect(changed.length).toBe(1);
          expect(changed[0]?.nodeName).toBe(was[after.indexOf(changed[0]!)]?.nodeName);
          break;
        }
      }
    }
    expect([...seen].sort()).toEqual(['ip-change', 'ready-flip', 'scale-down', 'scale-up']);
  });

  it('leaves a scenario that keeps every invariant', () => {
    expect(scenarioViolations({ ...s10k, endpointSlices: churn.slices() })).toEqual([]);
  });
});

describe('createChurn options', () => {
  const one = scenario({ services: 1, endpointsPerService: 100, nodes: 3 });

  it('stamps the caller-supplied time', () => {
    const step = createChurn(one).next(Date.parse('2030-05-06T07:08:09.123Z'));
    expect(step?.triggerTime).toBe('2030-05-06T07:08:09.123Z');
  });

  it('opens a new slice when scaling up a full one', () => {
    const churn = createChurn(one, {
      mix: { 'ready-flip': 0, 'scale-down': 0, 'ip-change': 0 },
      durationSeconds: 1,
      ratePerSecond: 3,
    });
    const steps = drain(churn);
    expect(steps.map((s) => [s.kind, s.created])).toEqual([
      ['scale-up', true],
      ['scale-up', false],
      ['scale-up', false],
    ]);
    expect(churn.slices().length).toBe(2);
    expect(scenarioViolations({ ...one, endpointSlices: churn.slices() })).toEqual([]);
  });

  it('follows the mix', () => {
    const steps = drain(
      createChurn(one, { mix: { 'scale-up': 0, 'scale-down': 0, 'ip-change': 0 }, durationSeconds: 2 }),
    );
    expect(new Set(steps.map((s) => s.kind))).toEqual(new Set(['ready-flip']));
  });

  it('rejects a rate, duration or mix it cannot follow', () => {
    expect(() => createChurn(one, { ratePerSecond: 0 })).toThrow(RangeError);
    expect(() =>
      createChurn(one, { mix: { 'ready-flip': 0, 'scale-up': 0, 'scale-down': 0, 'ip-change': 0 } }),
    ).toThrow(RangeError);
  });
});
