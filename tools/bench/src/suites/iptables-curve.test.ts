import { describe, expect, it } from 'vitest';
import { fitPowerLaw, nextSize, predict, sizeAt } from './iptables-curve.js';

describe('the iptables-nft growth curve', () => {
  it('fits t = a n^b through exact points', () => {
    const points = [250, 500, 1000].map((n) => ({ n, ms: 0.002 * n ** 2 }));
    const law = fitPowerLaw(points);
    expect(law.b).toBeCloseTo(2, 6);
    expect(predict(law, 10_000)).toBeCloseTo(200_000, 0);
    expect(sizeAt(law, 2000)).toBeCloseTo(1000, 3);
  });

  it('measures the next size only while the curve predicts it within the budget', () => {
    const sizes = [250, 500, 1000, 2000];
    expect(nextSize(sizes, [], 60_000)).toBe(250);
    // One point: quadratic growth assumed (1 s at 250 predicts 4 s at 500).
    expect(nextSize(sizes, [{ n: 250, ms: 1000 }], 3000)).toBeUndefined();
    expect(nextSize(sizes, [{ n: 250, ms: 1000 }], 4000)).toBe(500);
    const cubic = [250, 500].map((n) => ({ n, ms: 1e-5 * n ** 3 }));
    expect(nextSize(sizes, cubic, 10_000)).toBe(1000); // 10 s predicted
    expect(nextSize(sizes, cubic, 9_000)).toBeUndefined();
    expect(nextSize([250], [{ n: 250, ms: 1 }], 1e9)).toBeUndefined();
  });

  it('refuses a fit it cannot make', () => {
    expect(() => fitPowerLaw([{ n: 1, ms: 1 }])).toThrow(/two points/);
    expect(() =>
      fitPowerLaw([
        { n: 5, ms: 1 },
        { n: 5, ms: 2 },
      ]),
    ).toThrow(/two different sizes/);
  });
});
