import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * What a module loads before any of its code runs: its static value imports (`import type` and
 * `await import()` excluded), followed through this package's own files. Returns the packages
 * reached, by specifier.
 */
function staticPackages(entry: string): string[] {
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
      else packages.add(specifier);
    }
  };
  visit(fileURLToPath(new URL(entry, import.meta.url)));
  return [...packages].sort();
}

describe('what the kube-proxy program loads', () => {
  it('--help and --version load no backend, no API client, no runtime: only the flag table and core utilities', () => {
    expect(staticPackages('./main.ts')).toEqual(['@kpng/core', '@kpng/core/program', '@kpng/kit']);
  });

  it('running one mode loads its backend package alone: every backend is imported on demand (run/modes.ts)', () => {
    const run = staticPackages('./run.ts');
    for (const backend of ['@kpng/nft', '@kpng/iptables', '@kpng/ipvs', '@kpng/win-kernel'])
      expect([backend, run.includes(backend)]).toEqual([backend, false]);
    expect(staticPackages('../run/mode-nftables.ts')).toContain('@kpng/nft');
  });
});
