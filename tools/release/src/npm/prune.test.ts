import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runSync } from '@kpng/kit';
import { pruneNodeModules, pruneShell } from './prune.js';

const KEPT = [
  'a/package.json',
  'a/dist/index.js',
  'a/dist/index.cjs',
  'a/dist/data.json',
  'a/LICENSE',
  'a/LICENSE.md',
  'a/dist/lib/test-utils.js',
  'test/package.json', // a dependency named `test`
  'test/index.js',
  '@scope/docs/package.json', // a scoped dependency named `docs`
  '@scope/docs/index.js',
  'b/node_modules/tests/index.js', // a nested dependency named `tests`
  'yaml/dist/doc/directives.js', // code in a folder named `doc`, below a package's root
  'a/dist/test/helpers.js',
  'a/dist/readme.js',
  'a/dist/notices.js',
  'bare-url/prebuilds/linux-x64/bare-url.bare',
  'bare-url/prebuilds/linux-arm64/bare-url.bare',
];
const REMOVED = [
  'a/dist/index.d.ts',
  'a/dist/index.d.ts.map',
  'a/dist/index.js.map',
  'a/dist/index.d.mts',
  'a/dist/notices.d.ts',
  'a/dist/notices.js.map',
  'a/dist/LICENSE.d.ts',
  'a/src/index.ts',
  'a/README.md',
  'a/readme',
  'a/History.md',
  'bare-url/prebuilds/darwin-arm64/bare-url.bare',
  'bare-url/prebuilds/win32-x64/bare-url.bare',
  'a/CHANGELOG.md',
  'a/docs/guide.html',
  'a/test/a.test.js',
  'a/__tests__/x.js',
  '@scope/docs/examples/e.js',
  'b/node_modules/tests/test/t.js',
  'b/.github/workflows/ci.yml',
];

function files(root: string): string[] {
  const out: string[] = [];
  const walk = (dir: string): void => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else out.push(relative(root, p));
    }
  };
  walk(root);
  return out.sort();
}

describe('pruneNodeModules', () => {
  const dirs: string[] = [];
  afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

  const tree = (): string => {
    const root = join(mkdtempSync(join(tmpdir(), 'kpng-prune-')), 'node_modules');
    dirs.push(dirname(root));
    for (const f of [...KEPT, ...REMOVED]) {
      mkdirSync(dirname(join(root, f)), { recursive: true });
      writeFileSync(join(root, f), 'x');
    }
    return root;
  };

  it('removes declarations, sources, maps, docs and tests, and keeps code, data, licences and packages', () => {
    const root = tree();
    pruneNodeModules(root);
    expect(files(root)).toEqual([...KEPT].sort());
  });

  it("the Dockerfiles' shell line does the same", () => {
    const root = tree();
    const r = runSync(['sh', '-c', pruneShell(root)]);
    expect(r.stderr).toBe('');
    expect(r.exitCode).toBe(0);
    expect(files(root)).toEqual([...KEPT].sort());
  });

  it("for the Windows image keeps win32's prebuilds instead of Linux's, function and shell line alike", () => {
    const linux = ['bare-url/prebuilds/linux-x64/bare-url.bare', 'bare-url/prebuilds/linux-arm64/bare-url.bare'];
    const windows = 'bare-url/prebuilds/win32-x64/bare-url.bare';
    const expected = [...KEPT.filter((f) => !linux.includes(f)), windows].sort();
    const root = tree();
    pruneNodeModules(root, 'win32');
    expect(files(root)).toEqual(expected);
    const shell = tree();
    const r = runSync(['sh', '-c', pruneShell(shell, 'win32')]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(files(shell)).toEqual(expected);
  });
});
