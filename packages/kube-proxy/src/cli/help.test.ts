import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { usage } from './usage.js';

/** Upstream's `kube-proxy --help` flag names, kept as data (see each file's header). */
function flagList(file: string): string[] {
  return readFileSync(new URL(`../../test/${file}`, import.meta.url), 'utf8')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
}
const UPSTREAM = flagList('upstream-help-flags.txt');
const UPSTREAM_WINDOWS = flagList('upstream-help-flags-windows.txt');
/** kpng's own flags (extensions, named in the README's difference table). */
const KPNG_EXTENSIONS = ['with-netpol'];

/** The long flag names a --help text lists, in pflag's layout (`  -v, --v Level`, `      --config string`). */
function listedFlags(help: string): string[] {
  return [...help.matchAll(/^ {2}(?:-\w, | {4})--([a-z0-9-]+)/gm)].map((m) => m[1]!);
}

describe('--help against upstream kube-proxy', () => {
  const ours = new Set(listedFlags(usage()));

  it('reads both lists (the comparison cannot pass vacuously)', () => {
    expect(UPSTREAM.length).toBeGreaterThan(50);
    expect(ours.size).toBeGreaterThan(50);
  });

  it('lists every flag upstream lists', () => {
    expect(UPSTREAM.filter((flag) => !ours.has(flag))).toEqual([]);
  });

  it("lists no flag upstream does not have (on Linux or, for kernelspace mode's, on Windows) but kpng's extensions", () => {
    const extra = [...ours].filter((flag) => !UPSTREAM.includes(flag) && !UPSTREAM_WINDOWS.includes(flag));
    expect(extra).toEqual(KPNG_EXTENSIONS);
  });
});
