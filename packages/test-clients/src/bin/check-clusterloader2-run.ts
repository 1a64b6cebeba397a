#!/usr/bin/env node
import { runAsMain } from '@kpng/core/program';
import { checkMain } from '../check/main.js';

await runAsMain(import.meta.url, () => checkMain(process.argv.slice(2)));
