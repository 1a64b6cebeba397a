import { describe, expect, it } from 'vitest';
import { diffKeyed, runSteps, runStepsYielding, type Steps } from './keyed-diff.js';
import { TurnBudget } from './turn-budget.js';

function record(wanted: Map<string, number>, applied: Map<string, number>): Steps<string[]> {
  return (function* () {
    const seen: string[] = [];
    yield* diffKeyed(wanted, applied, (w, a) => w === a, {
      added: (k, w) => seen.push(`add ${k}=${w}`),
      changed: (k, w, a) => seen.push(`change ${k} ${a}->${w}`),
      unchanged: (k) => seen.push(`keep ${k}`),
      removed: (k, a) => seen.push(`remove ${k}=${a}`),
    });
    return seen;
  })();
}

describe('diffKeyed', () => {
  const wanted = new Map([
    ['b', 2],
    ['a', 1],
    ['c', 30],
  ]);
  const applied = new Map([
    ['d', 4],
    ['c', 3],
    ['a', 1],
  ]);

  it("visits wanted keys in wanted's order, then the applied keys nothing wants", () => {
    expect(runSteps(record(wanted, applied))).toEqual(['add b=2', 'keep a', 'change c 3->30', 'remove d=4']);
  });

  it('an undefined value is a value: a key held as undefined is not missing', () => {
    const seen: string[] = [];
    runSteps(
      diffKeyed(new Map([['k', 1]]), new Map<string, number | undefined>([['k', undefined]]), () => false, {
        changed: (k) => seen.push(`change ${k}`),
        added: (k) => seen.push(`add ${k}`),
      }),
    );
    expect(seen).toEqual(['change k']);
  });

  it('yields once per key: the same result at once or with turns', async () => {
    let steps = 0;
    const counting = record(wanted, applied);
    for (let s = counting.next(); s.done !== true; s = counting.next()) steps++;
    expect(steps).toBe(wanted.size + applied.size);
    const budget = new TurnBudget(0);
    const big = new Map(Array.from({ length: 64 }, (_, i) => [`k${i}`, i] as const));
    const result = await runStepsYielding(record(big, new Map()), budget);
    expect(result).toHaveLength(64);
    expect(budget.yields).toBe(4); // due() reads the clock every 16 calls; a 0 ms budget is spent each time
  });
});
