import { fileURLToPath } from 'node:url';
import type { ViteUserConfig } from 'vitest/config';

/**
 * Shared vitest settings. The `@kpng/source` export condition makes packages resolve each other's
 * TypeScript sources inside the repo, so tests never need a prior build. Each package writes a JSON
 * report that `tools/scripts/test.mjs` sums into the workspace's closing `N passed, M failed` line.
 */
export function kpngVitest(root: string): ViteUserConfig {
  const conditions = ['@kpng/source', 'node', 'import', 'module', 'default'];
  return {
    resolve: { conditions },
    ssr: { resolve: { conditions, externalConditions: ['@kpng/source'] } },
    test: {
      root,
      include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
      reporters: ['default', ['json', { outputFile: `${root}/.vitest-report.json` }]],
      testTimeout: 30_000,
      hookTimeout: 60_000,
      fileParallelism: true,
      // fast-check's seed, fixed unless KPNG_FUZZ_SEED says otherwise (see the file).
      setupFiles: [fileURLToPath(new URL('./vitest.fuzz-seed.mjs', import.meta.url))],
    },
  };
}
