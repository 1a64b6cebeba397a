import { configDefaults, defineConfig } from 'vitest/config';
import { kpngVitest } from '../../vitest.shared.js';

const config = kpngVitest(import.meta.dirname);
// Opt-in VM suites are not part of `npm test` (so they never count as skipped there): run one with
// `KPNG_VM_SUITES=nft-6.1 npx vitest run src/vm/nft-kernel-6.1.test.ts` in tools/lab.
const optIn = (process.env['KPNG_VM_SUITES'] ?? '').split(',').includes('nft-6.1')
  ? []
  : ['src/vm/nft-kernel-6.1.test.ts'];

export default defineConfig({ ...config, test: { ...config.test, exclude: [...configDefaults.exclude, ...optIn] } });
