import { describe, expect, it } from 'vitest';
import { parseVModule, vmoduleMatcher } from './vmodule.js';

describe('parseVModule', () => {
  it('reads pattern=N items', () => {
    expect(parseVModule('sync-loop=4, nft-*=2')).toEqual([
      { filePattern: 'sync-loop', verbosity: 4 },
      { filePattern: 'nft-*', verbosity: 2 },
    ]);
    expect(parseVModule('')).toEqual([]);
  });

  it.each(['proxier', 'a=b', '=3', 'x=99999999999'])('refuses %j', (text) => {
    expect(() => parseVModule(text)).toThrow('does not have the pattern=N format');
  });
});

describe('vmoduleMatcher', () => {
  const match = vmoduleMatcher([
    { filePattern: 'sync-loop', verbosity: 4 },
    { filePattern: 'nft-?ackend', verbosity: 3 },
    { filePattern: '/x/core/*/health-*', verbosity: 5 },
    { filePattern: '[ab]pply', verbosity: 6 },
  ])!;

  it.each([
    ['file:///app/core/dist/sync/sync-loop.js', 4],
    ['/src/packages/core/src/sync/sync-loop.ts', 4],
    ['/x/nft-backend.js', 3],
    ['/x/core/health/health-server.js', 5],
    ['/x/core/a/b/health-server.js', undefined], // `*` stays within one path segment
    ['/y/core/health/health-server.js', undefined], // a pattern with a slash matches the whole path
    ['/x/apply.js', 6],
    ['/x/sync-loop-drift.js', undefined],
    ['/x/sync.loop.js', undefined], // `.` is literal
  ])('%s -> %s', (path, v) => {
    expect(match(path)).toBe(v);
  });

  it('is undefined without rules (no per-call cost)', () => {
    expect(vmoduleMatcher([])).toBeUndefined();
  });
});
