import { describe, expect, it } from 'vitest';
import { leftoversOf } from './platform-cleanup.js';

describe('leftoversOf (upstream platformCleanup)', () => {
  it.each([
    ['iptables', ['nftables']],
    ['ipvs', ['nftables']],
    ['nftables', ['iptables', 'ipvs']],
    ['kernelspace', []],
  ])('%s removes %j', (mode, expected) => {
    expect(leftoversOf(mode)).toEqual(expected);
  });
});
