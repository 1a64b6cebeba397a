#!/usr/bin/env node
// `npm run bench -- <scenario> [--suite NAME] [--runs N] ...`: runs tools/bench's TypeScript sources
// directly (no build step; see tools/bench/README.md), prints one JSON object per measurement on
// stdout and a summary table on stderr. `npm run bench -- --help` for the options.
import { register } from 'node:module';

process.setSourceMapsEnabled(true);
register('../bench/scripts/ts-hooks.mjs', import.meta.url);
const { main } = await import('../bench/src/cli/main.ts');
process.exitCode = await main(process.argv.slice(2));
