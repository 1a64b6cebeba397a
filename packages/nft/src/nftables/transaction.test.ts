import { describe, expect, test } from 'vitest';
import { isNftError } from './errors.js';
import type { Chain, Element, NftSet, Rule, Table } from './objects/types.js';
import { renderOperations } from './render-transaction.js';
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
