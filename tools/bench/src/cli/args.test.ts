import { describe, expect, it } from 'vitest';
import { parseArgs } from './args.js';

describe('parseArgs', () => {
  it('has defaults', () => {
    expect(parseArgs(['s10k'])).toEqual({
      scenario: 's10k',
      suites: [],
      runs: 5,
      warmup: 1,
      seed: 1,
      list: false,
      help: false,
      options: {},
    });
  });

  it('reads flags with a space or an equals sign, and suites as a list', () => {
    const args = parseArgs([
      '--suite',
      'core,nft',
      's1k',
      '--suite=stream',
      '--runs=3',
      '--warmup',
      '0',
      '--seed',
      '7',
    ]);
    expect(args).toMatchObject({ scenario: 's1k', suites: ['core', 'nft', 'stream'], runs: 3, warmup: 0, seed: 7 });
  });

  it('passes unknown flags to suites', () => {
    expect(parseArgs(['s1k', '--netns=x', '--keep']).options).toEqual({ netns: 'x', keep: true });
  });

  it('reads --write, --list and --help', () => {
    expect(parseArgs(['s10k', '--write', '/tmp/s.yaml']).write).toBe('/tmp/s.yaml');
    expect(parseArgs(['--list']).list).toBe(true);
    expect(parseArgs(['-h']).help).toBe(true);
    expect(parseArgs(['--help']).help).toBe(true);
  });

  it('rejects bad counts, missing values and two scenarios', () => {
    expect(() => parseArgs(['s1k', '--runs', '0'])).toThrow(/--runs needs an integer >= 1/);
    expect(() => parseArgs(['s1k', '--runs', 'many'])).toThrow(/--runs/);
    expect(() => parseArgs(['s1k', '--warmup', '-1'])).toThrow(/--warmup/);
    expect(() => parseArgs(['s1k', '--suite'])).toThrow(/--suite needs a value/);
    expect(() => parseArgs(['s1k', 's10k'])).toThrow(/one scenario/);
  });
});
