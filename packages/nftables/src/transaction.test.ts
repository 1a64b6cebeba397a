import { describe, expect, it, test } from 'vitest';
import { isNftError } from './errors.js';
import type { Chain, Element, NftSet, Rule, Table } from './objects/types.js';
import { renderOperations, renderOperationsYielding, streamOperations } from './render-transaction.js';
import { TurnBudget } from '@kpng/kit';
import { Transaction } from './transaction.js';

const table: Table = { kind: 'table', family: 'ip', name: 'kpng' };
const chain: Chain = { kind: 'chain', family: 'ip', table: 'kpng', name: 'services' };
const set: NftSet = { kind: 'set', family: 'ip', table: 'kpng', name: 'cluster-ips', type: 'ipv4_addr' };
const element: Element = { kind: 'element', family: 'ip', table: 'kpng', set: 'cluster-ips', key: ['198.19.0.1'] };
const badRule: Rule = { kind: 'rule', family: 'ip', table: 'kpng', chain: 'services', rule: 'accept; flush ruleset' };

describe('Transaction', () => {
  test('queues operations without touching the host and renders one line each', () => {
    const tx = new Transaction();
    tx.add(table);
    tx.add(chain);
    tx.flush(chain);
    tx.delete(element);
    expect(tx.size).toBe(4);
    expect(tx.operations.map((op) => op.verb)).toEqual(['add', 'add', 'flush', 'delete']);
    expect(tx.toString()).toBe(
      'add table ip kpng\nadd chain ip kpng services\nflush chain ip kpng services\ndelete element ip kpng cluster-ips { 198.19.0.1 }\n',
    );
  });

  test('an empty transaction renders as nothing', () => {
    expect(new Transaction().toString()).toBe('');
    expect(new Transaction().size).toBe(0);
  });

  test('latches the first validation error and ignores later operations', () => {
    const tx = new Transaction();
    tx.add(table);
    tx.add(badRule);
    tx.add({ ...chain, name: 'counter' });
    tx.add(chain);
    expect(tx.size).toBe(1);
    expect(isNftError(tx.error)).toBe(true);
    expect(tx.error?.kind).toBe('invalid');
    expect(tx.error?.message).toMatch(/^add rule in chain ip kpng services: rule text must not contain ";"/);
    expect(tx.error?.operation).toEqual({ verb: 'add', object: badRule });
    expect(tx.toString()).toBe(`add table ip kpng\n# ERROR: ${tx.error?.message}\n`);
  });

  test('destroy is validated as add and delete too, so it means the same with or without emulation', () => {
    const tx = new Transaction();
    const { type: _type, ...untyped } = set;
    tx.destroy(untyped);
    expect(tx.error?.message).toMatch(/needs exactly one of type and typeof/);
  });
});

describe('renderOperations', () => {
  const tx = new Transaction();
  tx.add(table);
  tx.destroy(set);
  tx.destroy(element);
  tx.add(chain);

  test('writes destroy natively where nft has it', () => {
    const rendered = renderOperations(tx.operations, { objectComments: true, emulateDestroy: false });
    expect(rendered.text.split('\n').filter(Boolean)).toHaveLength(4);
    expect(rendered.lineOperations).toEqual([0, 1, 2, 3]);
  });

  test('emulates destroy as add then delete, and maps every line back to its operation', () => {
    const rendered = renderOperations(tx.operations, { objectComments: true, emulateDestroy: true });
    expect(rendered.text).toBe(
      [
        'add table ip kpng',
        'add set ip kpng cluster-ips { type ipv4_addr ; }',
        'delete set ip kpng cluster-ips',
        'add element ip kpng cluster-ips { 198.19.0.1 }',
        'delete element ip kpng cluster-ips { 198.19.0.1 }',
        'add chain ip kpng services',
        '',
      ].join('\n'),
    );
    expect(rendered.lineOperations).toEqual([0, 1, 1, 2, 2, 3]);
  });
});

describe('renderOperations, batchElements', () => {
  const el = (set: string, key: string, comment?: string): Element => ({
    kind: 'element',
    family: 'ip',
    table: 'kpng',
    set,
    key: [key],
    ...(comment === undefined ? {} : { comment }),
  });
  const tx = new Transaction();
  tx.add(table);
  tx.add(el('a', '198.19.0.1', 'ü'));
  tx.add(el('a', '198.19.0.2'));
  tx.add(el('a', '198.19.0.3'));
  tx.delete(el('a', '198.19.0.4'));
  tx.delete(el('a', '198.19.0.5'));
  tx.add(el('b', '198.19.0.6'));
  tx.destroy(el('b', '198.19.0.7'));
  tx.destroy(el('b', '198.19.0.8'));

  test('writes consecutive operations on one container with one verb as one line, mapping columns to operations', () => {
    const rendered = renderOperations(tx.operations, {
      objectComments: true,
      emulateDestroy: false,
      batchElements: true,
    });
    const lines = rendered.text.trimEnd().split('\n');
    expect(lines).toEqual([
      'add table ip kpng',
      'add element ip kpng a { 198.19.0.1 comment "ü", 198.19.0.2, 198.19.0.3 }',
      'delete element ip kpng a { 198.19.0.4, 198.19.0.5 }',
      'add element ip kpng b { 198.19.0.6 }',
      'destroy element ip kpng b { 198.19.0.7 }',
      'destroy element ip kpng b { 198.19.0.8 }',
    ]);
    expect(rendered.lineOperations).toEqual([0, 1, 4, 6, 7, 8]);
    expect(rendered.lineCounts).toEqual([1, 3, 2, 1, 1, 1]);
    // 1-based byte columns where each batched element starts ("ü" is two bytes).
    const column = (prefix: string): number => Buffer.byteLength(prefix) + 1;
    expect(Array.from(rendered.operationColumns).slice(1, 6)).toEqual([
      column('add element ip kpng a { '),
      column('add element ip kpng a { 198.19.0.1 comment "ü", '),
      column('add element ip kpng a { 198.19.0.1 comment "ü", 198.19.0.2, '),
      column('delete element ip kpng a { '),
      column('delete element ip kpng a { 198.19.0.4, '),
    ]);
  });

  test('honours maxBatch, and writes one element per line by default', () => {
    const small = renderOperations(tx.operations, {
      objectComments: true,
      emulateDestroy: false,
      batchElements: true,
      maxBatch: 2,
    });
    expect(small.lineCounts).toEqual([1, 2, 1, 2, 1, 1, 1]);
    expect(
      renderOperations(tx.operations, { objectComments: true, emulateDestroy: false }).lineCounts.every((n) => n === 1),
    ).toBe(true);
  });
});

describe('renderOperationsYielding', () => {
  it('renders what renderOperations renders, giving the event loop turns when the budget is spent', async () => {
    const tx = new Transaction();
    tx.add(table);
    for (let i = 0; i < 200; i++) tx.add({ ...chain, name: `c${i}` });
    const options = { objectComments: true, emulateDestroy: false, batchElements: true };
    const budget = new TurnBudget(0);
    expect(await renderOperationsYielding(tx.operations, options, budget)).toEqual(
      renderOperations(tx.operations, options),
    );
    expect(budget.yields).toBeGreaterThan(5);
  });
});

describe('Transaction.addEach (deferred adds)', () => {
  const elements = (n: number, from = 0): Element[] =>
    Array.from({ length: n }, (_, i) => ({ ...element, key: [`198.19.1.${from + i}`] }));

  test('counts in size, keeps its place among queued operations, and is made only when rendered', () => {
    const tx = new Transaction();
    let made = 0;
    tx.add(table);
    tx.addEach(3, function* () {
      made++;
      yield* elements(3);
    });
    tx.add(chain);
    expect(tx.size).toBe(5);
    expect(made).toBe(0);
    expect([...tx.ops()].map((op) => op.object.kind)).toEqual(['table', 'element', 'element', 'element', 'chain']);
    expect(made).toBe(1);
    // Made again (the same objects) to name what nft complained about, one pass per lookup.
    expect(tx.slice(2, 4)).toEqual(elements(2, 1).map((object) => ({ verb: 'add', object })));
    expect(tx.slice(4, 5)).toEqual([{ verb: 'add', object: chain }]);
    expect(tx.slice(5, 6)).toEqual([]);
    expect(made).toBe(2);
  });

  test.each([
    { name: 'an invalid object', bad: { ...chain, name: 'counter' }, count: 3 },
    { name: 'an invalid element', bad: { ...element, set: 'bad name' }, count: 3 },
  ])('$name is found when rendered: ops() throws NftError invalid naming it and where it is', ({ bad, count }) => {
    const tx = new Transaction();
    tx.add(table);
    tx.addEach(count, function* () {
      yield* elements(1);
      yield bad;
      yield* elements(1, 1);
    });
    expect(tx.error).toBeUndefined();
    let error: unknown;
    try {
      for (const _ of tx.ops());
    } catch (e) {
      error = e;
    }
    expect(isNftError(error)).toBe(true);
    expect(error).toMatchObject({ kind: 'invalid', line: 3, operation: { verb: 'add', object: bad } });
    expect(tx.toString()).toMatch(/^add table ip kpng\nadd element .*\n# ERROR: add /);
  });

  test.each([
    { yields: 2, message: 'made 2' },
    { yields: 4, message: 'made more' },
  ])('a deferred run that yields $yields objects for 3 is a bug: ops() throws', ({ yields, message }) => {
    const tx = new Transaction();
    tx.addEach(3, () => elements(yields));
    expect(() => [...tx.ops()]).toThrow(message);
  });

  test('adds nothing for a count of 0, or after a latched error', () => {
    const tx = new Transaction();
    tx.addEach(0, () => []);
    expect(tx.size).toBe(0);
    tx.add(badRule);
    tx.addEach(2, () => elements(2));
    expect(tx.size).toBe(0);
  });
});

describe('streamOperations', () => {
  const options = { objectComments: true, emulateDestroy: false, batchElements: true, maxBatch: 4 };
  const big = (): Transaction => {
    const tx = new Transaction();
    tx.add(table);
    tx.add(set);
    tx.addEach(50, function* () {
      for (let i = 0; i < 50; i++) yield { ...element, key: [`198.19.2.${i}`] };
    });
    for (let i = 0; i < 20; i++) tx.add({ ...chain, name: `c${i}` });
    return tx;
  };

  test('writes in chunks of whole lines exactly what renderOperations writes at once, with the same layout', async () => {
    const tx = big();
    const streamed = streamOperations(tx.ops(), options, new TurnBudget(0), 200);
    const chunks: string[] = [];
    expect(() => streamed.layout()).toThrow(/not rendered to its end/);
    for await (const chunk of streamed.chunks) chunks.push(chunk);
    const whole = renderOperations(tx.operations, options);
    expect(chunks.length).toBeGreaterThan(5);
    expect(chunks.every((chunk) => chunk.endsWith('\n'))).toBe(true);
    expect(chunks.join('')).toBe(whole.text);
    expect(streamed.layout()).toEqual({
      lineOperations: whole.lineOperations,
      lineCounts: whole.lineCounts,
      operationColumns: Array.from(whole.operationColumns),
    });
  });

  test('ends with the error of an invalid deferred object, after the chunks before it', async () => {
    const tx = new Transaction();
    tx.add(table);
    tx.addEach(2, () => [element, { ...chain, name: 'counter' }]);
    const streamed = streamOperations(tx.ops(), options, new TurnBudget(0), 1);
    const chunks: string[] = [];
    await expect(
      (async () => {
        for await (const chunk of streamed.chunks) chunks.push(chunk);
      })(),
    ).rejects.toMatchObject({ kind: 'invalid', line: 3 });
    expect(chunks).toEqual(['add table ip kpng\n']);
    expect(() => streamed.layout()).toThrow(/not rendered to its end/);
  });
});
