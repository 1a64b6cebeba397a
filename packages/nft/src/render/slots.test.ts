import { describe, expect, it } from 'vitest';
import { assignSlots, SlotMemory } from './slots.js';

describe('assignSlots', () => {
  const cases: { name: string; previous: string[] | undefined; current: string[]; expected: string[] }[] = [
    { name: 'first time: list order', previous: undefined, current: ['a', 'b', 'c'], expected: ['a', 'b', 'c'] },
    { name: 'unchanged', previous: ['c', 'a', 'b'], current: ['a', 'b', 'c'], expected: ['c', 'a', 'b'] },
    { name: 'newcomer appended', previous: ['b', 'a'], current: ['a', 'b', 'c'], expected: ['b', 'a', 'c'] },
    { name: 'last removed', previous: ['a', 'b', 'c'], current: ['a', 'b'], expected: ['a', 'b'] },
    {
      name: 'middle removed: last moves in',
      previous: ['a', 'b', 'c', 'd'],
      current: ['a', 'c', 'd'],
      expected: ['a', 'd', 'c'],
    },
    { name: 'newcomer fills the hole', previous: ['a', 'b', 'c'], current: ['a', 'x', 'c'], expected: ['a', 'x', 'c'] },
    { name: 'two holes, one newcomer', previous: ['a', 'b', 'c', 'd'], current: ['d', 'x'], expected: ['x', 'd'] },
    { name: 'all gone', previous: ['a', 'b'], current: [], expected: [] },
    { name: 'first and last removed', previous: ['a', 'b', 'c', 'd'], current: ['b', 'c'], expected: ['c', 'b'] },
  ];
  it.each(cases)('$name', ({ previous, current, expected }) => {
    expect(assignSlots(previous, current)).toEqual(expected);
  });

  it('always yields exactly the current members, whatever the history', () => {
    let seed = 7;
    const random = (n: number): number => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % n;
    let previous: string[] = [];
    for (let round = 0; round < 200; round++) {
      const current = Array.from({ length: random(8) }, () => `e${random(12)}`).filter(
        (id, i, all) => all.indexOf(id) === i,
      );
      const slots = assignSlots(previous, current);
      expect([...slots].sort()).toEqual([...current].sort());
      // Survivors keep their slot unless they were moved into a hole (then they come from the end).
      for (const [i, id] of previous.entries()) {
        if (slots.includes(id) && slots.indexOf(id) !== i) expect(slots.indexOf(id)).toBeLessThan(i);
      }
      previous = slots;
    }
  });
});

describe('SlotMemory', () => {
  const ep = (n: number): { ip: string; port: number } => ({ ip: `198.18.1.${n}`, port: 8080 });
  const ids = (eps: readonly { ip: string }[]): string[] => eps.map((e) => e.ip.split('.')[3] as string);

  it('continues per Service and list, and forgets unused lists and Services', () => {
    const memory = new SlotMemory();
    let slots = memory.begin('ns/a');
    slots.assign('p|x', [ep(1), ep(2)]);
    slots.assign('p|y', [ep(9)]);
    memory.remember('ns/a', slots);
    slots = memory.begin('ns/a');
    expect(ids(slots.assign('p|x', [ep(2), ep(3)]))).toEqual(['3', '2']);
    memory.remember('ns/a', slots); // p|y unused: forgotten
    expect(ids(memory.begin('ns/a').assign('p|y', [ep(8), ep(9)]))).toEqual(['8', '9']);
    memory.forget('ns/a');
    expect(memory.size).toBe(0);
    expect(ids(memory.begin('ns/a').assign('p|x', [ep(2), ep(3)]))).toEqual(['2', '3']);
  });

  it('returns an unchanged list as it is (same members, same order)', () => {
    const memory = new SlotMemory();
    let slots = memory.begin('ns/a');
    slots.assign('p|x', [ep(1), ep(2)]);
    memory.remember('ns/a', slots);
    slots = memory.begin('ns/a');
    const current = [ep(1), ep(2)];
    expect(slots.assign('p|x', current)).toBe(current);
    // A different port is a different endpoint.
    expect(ids(memory.begin('ns/a').assign('p|x', [{ ip: '198.18.1.2', port: 9 }, ep(1)]))).toEqual(['1', '2']);
  });
});

describe('sticky port numbers', () => {
  it('are kept while a port stays sticky, and never reused', () => {
    const memory = new SlotMemory();
    let slots = memory.begin('ns/a');
    expect([slots.portId('ns/a:http/TCP'), slots.portId('ns/a:dns/UDP'), slots.portId('ns/a:http/TCP')]).toEqual([
      1, 2, 1,
    ]);
    memory.remember('ns/a', slots);
    slots = memory.begin('ns/a');
    expect(slots.portId('ns/a:http/TCP')).toBe(1);
    memory.remember('ns/a', slots); // dns/UDP no longer sticky: forgotten
    expect(memory.begin('ns/a').portId('ns/a:dns/UDP')).toBe(3);
    memory.forget('ns/a');
    expect(memory.begin('ns/a').portId('ns/a:http/TCP')).toBe(4);
  });
});
