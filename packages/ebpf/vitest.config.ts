import { defineConfig } from 'vitest/config';
import { kpngVitest } from '../../vitest.shared.js';

const shared = kpngVitest(import.meta.dirname);

// The kernel suites load dist/bpf/*.o: the global setup compiles them first when they are missing
// or older than their sources (clang; CI's build has already made them), so no test needs a build.
export default defineConfig({ ...shared, test: { ...shared.test, globalSetup: ['./test/build-objects.ts'] } });
