// Benchmarks are not tests: `npx vitest run --config bench/vitest.config.ts` (root privileges; they
// create and delete their own network namespaces). Not part of `npm test`.
import { defineConfig } from 'vitest/config';
import { kpngVitest } from '../../../vitest.shared.js';

const base = kpngVitest(new URL('..', import.meta.url).pathname);
export default defineConfig({
  ...base,
  test: { ...base.test, include: ['bench/**/*.bench-run.ts'], reporters: ['default'], testTimeout: 1_800_000, fileParallelism: false },
});
