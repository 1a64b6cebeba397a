import semver from 'semver';
import { describe, expect, it } from 'vitest';
import { publishablePackages } from '../workspace.js';
import { NODE_LINES } from './node-lines.js';
import { NODE_RUNTIME } from './node-runtime.js';

// `engines.node` of every published package says what is supported: the LTS lines, from the one
// the development toolchain runs (CI's machine, the first `npm test` pass) to the one the images
// run (the second pass, KPNG_TEST_NODE_LTS). Odd, never-LTS lines are not admitted.
const packages = publishablePackages();

describe('engines.node of the published packages', () => {
  const ranges = new Map(packages.map((p) => [p.manifest.name, p.manifest.engines?.node]));

  it('is one policy, stated by every published package', () => {
    expect([...ranges.values()].every((r) => typeof r === 'string' && semver.validRange(r) !== null)).toBe(true);
    expect(new Set(ranges.values()).size).toBe(1);
  });

  const range = [...ranges.values()][0] ?? '';

  it(`admits the images' node (${NODE_RUNTIME.version}) and the node running these tests (${process.version})`, () => {
    expect(semver.satisfies(NODE_RUNTIME.version, range)).toBe(true);
    expect(semver.satisfies(process.version, range)).toBe(true);
  });

  // Odd lines are never LTS; those after the images' line are admitted with `>=` like any newer release.
  it.each([19, 21, 23])('admits no release of the odd (never LTS) line %i', (major) => {
    expect(semver.intersects(range, `${major}.x`)).toBe(false);
  });

  it('admits every LTS line from the oldest it names on (so a newer LTS is not refused)', () => {
    const lines = NODE_LINES.filter((l) => semver.intersects(range, `${l.major}.x`)).map((l) => l.major);
    const oldest = Math.min(...lines);
    expect(lines).toEqual(NODE_LINES.map((l) => l.major).filter((m) => m >= oldest));
    expect(semver.satisfies('99.0.0', range)).toBe(true);
  });
});
