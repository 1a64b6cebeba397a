import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runSync } from '@kpng/kit';
import { laneSuites, vmSuites } from '../vm-lane.mjs';

/** `vm-lane.mjs` run to its end with `args`. */
const lane = (args: string[]) =>
  runSync([process.execPath, join(import.meta.dirname, '..', 'vm-lane.mjs'), ...args], { env: { FORCE_COLOR: '0' } });

// A throwaway package folder inside the workspace (so `npx vitest` resolves the workspace's vitest).
const scratch = mkdtempSync(join(import.meta.dirname, '..', '.cache-vm-lane-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function pkg(name: string, files: Record<string, string>): string {
  const dir = join(scratch, name);
  // Its own config: vitest would otherwise take this package's (and overwrite its report).
  const config = { 'vitest.config.mjs': 'export default { test: {} };\n' };
  for (const [path, text] of Object.entries({ ...config, ...files })) {
    mkdirSync(join(dir, path, '..'), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

const suite = (passes: boolean) =>
  `import { it, expect } from 'vitest';\nit('runs', () => expect(${passes}).toBe(true));\n`;

describe('the side lanes', () => {
  it('finds the *vm.test.ts files under src/ and test/ only', () => {
    const dir = pkg('find', {
      'src/vm/vm.test.ts': '',
      'src/vm/nft-kernel-6.1.vm.test.ts': '',
      'src/vm/cpio.test.ts': '',
      'test/vm.test.ts': '',
      'test/guest/backend.guest.ts': '',
      'other/vm.test.ts': '',
    });
    expect(vmSuites(dir).sort()).toEqual(['src/vm/nft-kernel-6.1.vm.test.ts', 'src/vm/vm.test.ts', 'test/vm.test.ts']);
  });

  it("finds tools/release's image suites: src/oci/*.e2e.test.ts and src/npm/pack-smoke.test.ts only", () => {
    const dir = pkg('images', {
      'src/oci/images.e2e.test.ts': '',
      'src/oci/windows-install.e2e.test.ts': '',
      'src/oci/engines.test.ts': '',
      'src/oci/deeper/x.e2e.test.ts': '',
      'src/npm/pack-smoke.test.ts': '',
      'src/npm/prune.test.ts': '',
      'test/oci/y.e2e.test.ts': '',
    });
    expect(laneSuites(dir, 'images')).toEqual([
      'src/npm/pack-smoke.test.ts',
      'src/oci/images.e2e.test.ts',
      'src/oci/windows-install.e2e.test.ts',
    ]);
    expect(laneSuites(dir, 'vm')).toEqual([]);
  });

  it("finds this repository's image suites in tools/release and its VM suites in packages/ipvs and tools/lab", () => {
    const repo = join(import.meta.dirname, '..', '..', '..');
    expect(laneSuites(join(repo, 'tools/release'), 'images')).toEqual([
      'src/npm/pack-smoke.test.ts',
      'src/oci/images.e2e.test.ts',
      'src/oci/windows-install.e2e.test.ts',
    ]);
    expect(vmSuites(join(repo, 'packages/ipvs')).length).toBeGreaterThan(0);
    expect(vmSuites(join(repo, 'tools/lab')).length).toBeGreaterThan(0);
  });

  it('runs only the VM suites of each package and exits non-zero when one fails', () => {
    const good = pkg('good', { 'test/vm.test.ts': suite(true), 'test/unit.test.ts': suite(false) });
    const bad = pkg('bad', { 'src/x.vm.test.ts': suite(false) });
    const ok = lane([good]);
    expect(ok.exitCode, ok.stdout + ok.stderr).toBe(0);
    expect(ok.stdout).toContain('test/vm.test.ts');
    expect(ok.stdout).not.toContain('unit.test.ts');
    const failed = lane([bad, good]);
    expect(failed.exitCode).not.toBe(0);
    // The package after a failed one still runs.
    expect(failed.stdout).toContain(`=== VM lane: ${good}`);
  });

  it('runs the image lane with --lane=images into its own report, and refuses a package without suites', () => {
    const rel = pkg('rel', {
      // The workspace's config writes its report to KPNG_VITEST_REPORT; so does this one.
      'vitest.config.mjs':
        "export default { test: { reporters: ['default', ['json', { outputFile: process.env.KPNG_VITEST_REPORT }]] } };\n",
      'src/oci/images.e2e.test.ts': suite(true),
      'src/oci/unit.test.ts': suite(false),
      'src/npm/pack-smoke.test.ts': suite(true),
    });
    const none = pkg('none', { 'src/unit.test.ts': suite(true) });
    const ok = lane(['--lane=images', rel]);
    expect(ok.exitCode, ok.stdout + ok.stderr).toBe(0);
    expect(ok.stdout).toContain('src/oci/images.e2e.test.ts');
    expect(ok.stdout).toContain('src/npm/pack-smoke.test.ts');
    expect(ok.stdout).not.toContain('unit.test.ts');
    const report = JSON.parse(readFileSync(join(rel, '.vitest-report.images.json'), 'utf8')) as {
      numPassedTests: number;
    };
    expect(report.numPassedTests).toBe(2);
    const empty = lane(['--lane=images', none]);
    expect(empty.exitCode).not.toBe(0);
    expect(empty.stderr).toContain('has no images suites');
    expect(empty.stdout).not.toContain('unit.test.ts');
    expect(lane(['--lane=nope', rel]).exitCode).toBe(2);
  });
});
