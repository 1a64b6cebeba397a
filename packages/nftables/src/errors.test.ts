import { describe, expect, test } from 'vitest';
import { classifyNftMessage, isAlreadyExists, isNotFound, NftError } from './errors.js';
import type { Operation } from './operation.js';

const op = (name: string): Operation => ({ verb: 'add', object: { kind: 'chain', family: 'ip', table: 't', name } });

describe('classifyNftMessage', () => {
  test.each([
    [
      '/dev/stdin:1:17-17: Error: Could not process rule: File exists\ncreate table ip t\n                ^\n',
      'exists',
    ],
    ['/dev/stdin:1:19-22: Error: Could not process rule: No such file or directory\n', 'not-found'],
    ['Error: No such file or directory\nlist table ip nope\n              ^^^^\n', 'not-found'],
    ['/dev/stdin:1:19-19: Error: Could not process rule: Device or resource busy\n', 'busy'],
    ['/dev/stdin:1:1-58: Error: Could not process rule: Operation not supported\n', 'not-supported'],
    ['/dev/stdin:2:17-21: Error: No symbol type information\n', 'unknown'],
  ])('%j is %s', (stderr, kind) => {
    expect(classifyNftMessage(stderr)).toBe(kind);
  });
});

describe('NftError.fromNft', () => {
  // Two errors, as nft 1.0.6 prints them for a transaction whose lines 2 and 4 fail.
  const stderr =
    '/dev/stdin:2:22-25: Error: Could not process rule: No such file or directory\nadd rule ip t c jump nope\n                     ^^^^\n' +
    '/dev/stdin:4:22-26: Error: Could not process rule: No such file or directory\nadd rule ip t c jump nope2\n                     ^^^^^\n';
  const operations = [op('a'), op('b'), op('c')];

  test('keeps stderr verbatim and maps each reported line to its operation', () => {
    // Line 1 is operation 0; operation 1 was an emulated destroy written on lines 2 and 3.
    const error = NftError.fromNft(stderr, [0, 1, 1, 2], operations);
    expect(error.stderr).toBe(stderr);
    expect(error.message).toBe(stderr.trimEnd());
    expect(error.kind).toBe('not-found');
    expect(error.line).toBe(2);
    expect(error.operation).toBe(operations[1]);
    expect(error.failures.map((f) => [f.line, f.operationIndex, f.message])).toEqual([
      [2, 1, 'Could not process rule: No such file or directory'],
      [4, 2, 'Could not process rule: No such file or directory'],
    ]);
    expect(isNotFound(error)).toBe(true);
    expect(isAlreadyExists(error)).toBe(false);
  });

  test('a report on a batched line maps to the element at its column, or to the whole line', () => {
    const elements = [1, 2, 3].map((n): Operation => ({
      verb: 'delete',
      object: { kind: 'element', family: 'ip', table: 't', set: 's', key: [`10.0.0.${n}`] },
    }));
    const all = [op('a'), ...elements];
    // Line 2: `delete element ip t s { 10.0.0.1, 10.0.0.2, 10.0.0.3 }`, elements at columns 25, 35, 45.
    const layout = { lineCounts: [1, 3], operationColumns: [0, 25, 35, 45] };
    const at = (column: number): NftError =>
      NftError.fromNft(
        `/dev/stdin:2:${column}-${column + 7}: Error: Could not process rule: No such file or directory\n`,
        [0, 1],
        all,
        layout,
      );
    expect(at(35)).toMatchObject({ line: 2, operation: elements[1], failures: [{ column: 35, operationIndex: 2 }] });
    expect(at(45).operation).toBe(elements[2]);
    expect(at(25).failures[0]?.operations).toBeUndefined();
    const whole = at(1);
    expect(whole.operation).toBe(elements[0]);
    expect(whole.failures[0]?.operations).toEqual(elements);
  });

  test('lines outside the transaction have no operation', () => {
    const error = NftError.fromNft(stderr, [0], operations);
    expect(error.failures[0]?.operation).toBeUndefined();
  });

  test('an empty stderr still explains itself', () => {
    expect(NftError.fromNft('').message).toMatch(/without an error message/);
  });

  test('predicates reject other errors', () => {
    expect(isNotFound(new Error('No such file or directory'))).toBe(false);
    expect(isAlreadyExists(undefined)).toBe(false);
  });
});
