import { defineConfig } from 'vitest/config';
import { kpngVitest } from '../../vitest.shared.js';

const config = kpngVitest(import.meta.dirname);
// The README's example backend is tested where it lives.
export default defineConfig({
  ...config,
  test: { ...config.test, include: [...(config.test?.include ?? []), 'examples/**/*.test.ts'] },
});
