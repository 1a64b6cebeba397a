import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { vmSuites } from '../vm-lane.mjs';

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

describe('the VM lane', () => {
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

  it('runs only the VM suites of each package and exits non-zero when one fails', () => {
    const good = pkg('good', { 'test/vm.test.ts': suite(true), 'test/unit.test.ts': suite(false) });
    const bad = pkg('bad', { 'src/x.vm.test.ts': suite(false) });
    const lane = (dirs: string[]) =>
      spawnSync(process.execPath, [join(import.meta.dirname, '..', 'vm-lane.mjs'), ...dirs], {
        encoding: 'utf8',
        env: { ...process.env, FORCE_COLOR: '0' },
      });
    const ok = lane([good]);
    expect(ok.status, ok.stdout + ok.stderr).toBe(0);
    expect(ok.stdout).toContain('test/vm.test.ts');
    expect(ok.stdout).not.toContain('unit.test.ts');
    const failed = lane([bad, good]);
    expect(failed.status).not.toBe(0);
    // The package after a failed one still runs.
    expect(failed.stdout).toContain(`=== VM lane: ${good}`);
  });
});
