import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { requireBuilt } from '../built.js';
import { binMap, publishablePackages } from '../workspace.js';
import { packSmoke, type SmokeResult } from './pack-smoke.js';

const packages = publishablePackages();
const work = mkdtempSync(join(tmpdir(), 'kpng-pack-smoke-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('npm pack smoke test: every package installs and runs in an empty project', () => {
  let result: SmokeResult | undefined;

  it('packs every publishable package and installs the tarballs together', ({ skip }) => {
    requireBuilt(packages, skip);
    expect(packages.map((p) => p.manifest.name)).toEqual(
      expect.arrayContaining(['@kpng/core', '@kpng/nft', '@kpng/kube-proxy']),
    );
    result = packSmoke(packages, work, (l) => console.log(`pack-smoke: ${l}`));
    expect(result.tarballs).toHaveLength(packages.length);
    const install = result.checks[0]!;
    expect(install.ok, install.detail).toBe(true);
  }, 300_000);

  it.for(packages.map((p) => p.manifest.name))('%s imports from the installed tarball', (name, { skip }) => {
    if (!result) return skip('the install step did not run (see above)');
    const c = result.checks.find((x) => x.what === `import('${name}')`)!;
    expect(c.ok, c.detail).toBe(true);
  });

  const bins = packages.flatMap((p) =>
    Object.keys(binMap(p.manifest)).flatMap((b) => [`${b} --version`, `${b} --help`]),
  );
  it.for(bins)('%s exits 0 with output', (what, { skip }) => {
    if (!result) return skip('the install step did not run (see above)');
    const c = result.checks.find((x) => x.what === what)!;
    expect(c.ok, c.detail).toBe(true);
  });
});
