/**
 * A compiled copy of workspace packages, for measuring a program as it runs in production: plain
 * JavaScript, no TypeScript loader in the process (a loader thread and the transpiled sources
 * it holds add to a process's resident set: docs/PERFORMANCE.md). Each package's `src/**\/*.ts` (tests
 * excluded) is transpiled file by file into `<into>/node_modules/<name>/dist/`, next to a copy of
 * its package.json, so the packages find each other there and everything else (execa,
 * @kubernetes/client-node...) in the workspace's node_modules, as long as `into` lies inside the
 * workspace.
 */
import { existsSync } from 'node:fs';
import { cp, mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';

export interface WorkspacePackage {
  /** `@kpng/core` */
  readonly name: string;
  /** The package's folder (holding package.json and src/). */
  readonly dir: string;
}

async function sources(dir: string): Promise<string[]> {
  const found: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== 'testdata') found.push(...(await sources(path)));
    } else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') && !entry.name.endsWith('.d.ts')) {
      found.push(path);
    }
  }
  return found;
}

/** Writes the compiled copies (replacing older ones); returns each package's copy folder. */
export async function compiledCopy(packages: readonly WorkspacePackage[], into: string): Promise<Map<string, string>> {
  // TypeScript is the workspace's own compiler; only benchmarks load it, and only here.
  const ts = (await import('typescript')).default;
  const copies = new Map<string, string>();
  for (const pkg of packages) {
    const target = join(into, 'node_modules', pkg.name);
    await rm(target, { recursive: true, force: true });
    await mkdir(target, { recursive: true });
    await cp(join(pkg.dir, 'package.json'), join(target, 'package.json'));
    const src = join(pkg.dir, 'src');
    for (const file of await sources(src)) {
      const output = ts.transpileModule(await readFile(file, 'utf8'), {
        fileName: file,
        compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, verbatimModuleSyntax: true },
      }).outputText;
      const out = join(target, 'dist', relative(src, file)).replace(/\.ts$/, '.js');
      await mkdir(dirname(out), { recursive: true });
      await writeFile(out, output);
    }
    // Build outputs that are not TypeScript (@kpng/ebpf's compiled BPF objects) are copied as built.
    const bpf = join(pkg.dir, 'dist', 'bpf');
    if (existsSync(bpf)) await cp(bpf, join(target, 'dist', 'bpf'), { recursive: true });
    copies.set(pkg.name, target);
  }
  return copies;
}
