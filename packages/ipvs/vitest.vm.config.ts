import { defineConfig } from 'vitest/config';
import { kpngVitest } from '../../vitest.shared.js';

/**
 * The suites that run inside the lab's VM (a Debian kernel with IPVS; `test/vm.test.ts` boots it
 * once and reports each guest test). One vCPU: files run one after another.
 */
const shared = kpngVitest(import.meta.dirname);
export default defineConfig({
  ...shared,
  test: {
    ...shared.test,
    include: ['test/guest/**/*.guest.ts'],
    // The API server cases through kpng-ipvs: opt-in (`KPNG_VM_SUITES=ipvs-api-faults`), see README.
    exclude: (process.env['KPNG_VM_SUITES'] ?? '').split(',').includes('ipvs-api-faults')
      ? []
      : ['test/guest/program-api-outage.guest.ts', 'test/guest/program-hostile.guest.ts'],
    reporters: ['default'],
    fileParallelism: false,
    testTimeout: 120_000,
    hookTimeout: 300_000,
  },
});
