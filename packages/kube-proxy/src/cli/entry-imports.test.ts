import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));

/** A workspace package's source for `specifier` (`@kpng/core/entry`), through its `@kpng/source` export. */
function workspaceSource(specifier: string): string {
  const [scope, name, ...rest] = specifier.split('/');
  const dir = resolve(ROOT, 'node_modules', `${scope}/${name}`);
  const exports = (
    JSON.parse(readFileSync(resolve(dir, 'package.json'), 'utf8')) as {
      exports: Record<string, Record<string, string>>;
    }
  ).exports;
  const source = exports[['.', ...rest].join('/')]?.['@kpng/source'];
  if (source === undefined) throw new Error(`${specifier}: no @kpng/source export`);
  return resolve(dir, source);
}

/**
 * What a module loads before any of its code runs: its static value imports (`import type` and
 * `await import()` excluded), followed through this package's own files and, with `workspace`,
 * through the workspace packages' sources too. Returns the packages reached, by specifier (with
 * `workspace`, only packages outside the workspace), and the source files reached.
 */
function staticImports(entry: string, workspace = false): { packages: string[]; files: number } {
  const packages = new Set<string>();
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(/^(?:import|export)\s+(type\s+)?(?:[^'";]*?\sfrom\s+)?'([^']+)'/gm)) {
      const [, typeOnly, specifier] = m;
      if (typeOnly !== undefined || specifier === undefined || specifier.startsWith('node:')) continue;
      if (specifier.startsWith('.')) visit(resolve(dirname(file), specifier.replace(/\.js$/, '.ts')));
      else if (workspace && specifier.startsWith('@kpng/')) visit(workspaceSource(specifier));
      else packages.add(specifier);
    }
  };
  visit(fileURLToPath(new URL(entry, import.meta.url)));
  return { packages: [...packages].sort(), files: seen.size };
}

describe('what the kube-proxy program loads', () => {
  it('--help and --version load no backend, no API client, no runtime: only the flag table and core utilities', () => {
    expect(staticImports('./main.ts').packages).toEqual(['@kpng/core/entry', '@kpng/kit']);
  });

  it('--help and --version load no package outside the workspace (no prom-client, yaml, gRPC), in a pinned number of modules', () => {
    const reached = staticImports('./main.ts', true);
    expect(reached.packages).toEqual([]);
    // The source modules the entry reaches: kube-proxy's flag table and config types, core's
    // entry, @kpng/kit. Compiled, `--version` loads these 28 and nothing else (before this pin: 82
    // ES modules and prom-client's 88 CommonJS ones; 27 until the kit's index gained its keyed diff,
    // one small module with no imports; still 28 once the modes' backends are created through their
    // BackendModule, counted again on the compiled entry with a `module.register` load hook: no
    // backend, no `@kpng/core/runtime`). A change here is a change in what every
    // `kube-proxy --version` costs: update it knowingly.
    expect(reached.files).toBe(28);
  });

  it('running one mode loads its backend package alone: every backend is imported on demand (run/modes.ts)', () => {
    const run = staticImports('./run.ts').packages;
    for (const backend of ['@kpng/nft', '@kpng/iptables', '@kpng/ipvs', '@kpng/win-kernel'])
      expect([backend, run.includes(backend)]).toEqual([backend, false]);
    expect(staticImports('../run/mode-nftables.ts').packages).toContain('@kpng/nft');
  });

  it('a proxy configured by flags loads no yaml: only a --config file or --write-config-to does (config/yaml.ts)', () => {
    expect(staticImports('./run.ts').packages).not.toContain('yaml');
    expect(staticImports('./run.ts').packages).toContain('@kpng/core/runtime'); // the walk reached past run.ts
  });
});
