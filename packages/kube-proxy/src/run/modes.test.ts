import { describe, expect, it } from 'vitest';
import { availableModes, defaultMode, MODES } from './modes.js';

describe('proxy modes per OS', () => {
  it.each([
    ['linux', ['iptables', 'nftables', 'ipvs'], 'iptables'],
    ['win32', ['kernelspace'], 'kernelspace'],
  ] as const)('%s runs %j; a blank mode means %s', (platform, modes, blank) => {
    expect(availableModes(platform)).toEqual(modes);
    expect(defaultMode(platform)).toBe(blank);
  });

  it('every mode names the OS it exists on', () => {
    for (const [name, mode] of MODES) expect([name, ['linux', 'win32'].includes(mode.platform)]).toEqual([name, true]);
  });
});
