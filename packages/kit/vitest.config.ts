import { defineConfig } from 'vitest/config';
import { kpngVitest } from '../../vitest.shared.js';

export default defineConfig(kpngVitest(import.meta.dirname));
