import { fileURLToPath } from 'node:url';
import { configDefaults, type ViteUserConfig } from 'vitest/config';

/**
 * Shared vitest settings. The `@kpng/source` export condition makes packages resolve each other's
 * TypeScript sources inside the repo, so tests never need a prior build. Each package writes a JSON
 * report that `tools/scripts/test.mjs` sums into the workspace's closing `N passed, M failed` line.
 * test.mjs runs the suites that boot the lab's kernel VM (`*vm.test.ts`) and tools/release's image
 * suites in lanes of their own beside the rest: `KPNG_VITEST_EXCLUDE` (comma-separated globs) leaves
 * them out of the main run, and `KPNG_VITEST_REPORT` names a lane's report file so two runs of one
 * package never share one.
 */
export function kpngVitest(root: string): ViteUserConfig {
  const conditions = ['@kpng/source', 'node', 'import', 'module', 'default'];
  return {
    resolve: { conditions },
    ssr: { resolve: { conditions, externalConditions: ['@kpng/source'] } },
    test: {
      root,
      include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
      exclude: [...configDefaults.exclude, ...excludedByEnv()],
      reporters: [
        'default',
        ['json', { outputFile: `${root}/${process.env['KPNG_VITEST_REPORT'] ?? '.vitest-report.json'}` }],
      ],
      testTimeout: 30_000,
      hookTimeout: 60_000,
      fileParallelism: true,
      // fast-check's seed, fixed unless KPNG_FUZZ_SEED says otherwise (see the file).
      setupFiles: [fileURLToPath(new URL('./vitest.fuzz-seed.mjs', import.meta.url))],
    },
  };
}

function excludedByEnv(): string[] {
  return (process.env['KPNG_VITEST_EXCLUDE'] ?? '').split(',').filter((glob) => glob !== '');
}
