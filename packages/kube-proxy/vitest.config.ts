import { defineConfig, mergeConfig } from 'vitest/config';
import { kpngVitest } from '../../vitest.shared.js';

// The fault suite's files (test/fault-*.e2e.test.ts) mostly wait (30 s outages, repair deadlines,
// traffic every 20 ms), so they run two at a time even on CI's 2 cores (vitest's default there
// is one file at a time).
export default defineConfig(mergeConfig(kpngVitest(import.meta.dirname), { test: { maxWorkers: 2 } }));
