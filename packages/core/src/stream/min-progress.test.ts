import { describe, expect, it } from 'vitest';
import { drainBoundMs, MIN_BYTES_PER_WINDOW } from './min-progress.js';

describe('drainBoundMs', () => {
  it('is one window plus one window per 64 KiB of the message, rounded up to a millisecond', () => {
    expect(MIN_BYTES_PER_WINDOW).toBe(65_536);
    expect(drainBoundMs(0, 15_000)).toBe(15_000);
    expect(drainBoundMs(1, 15_000)).toBe(15_001);
    expect(drainBoundMs(65_536, 15_000)).toBe(30_000);
    expect(drainBoundMs(1_000_000, 15_000)).toBe(243_882);
    expect(drainBoundMs(20_000_000, 15_000)).toBe(4_592_637);
    expect(drainBoundMs(1_000, 10_000, 1_000)).toBe(20_000);
  });
});
