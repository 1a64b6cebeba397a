#!/usr/bin/env node
// `npm run -w @kpng/release pack-smoke [-- --keep]`: packs, installs and runs every publishable package.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { missingBuildOutput } from '../npm/pack.js';
import { packSmoke } from '../npm/pack-smoke.js';
import { publishablePackages } from '../workspace.js';

const packages = publishablePackages();
const missing = packages.flatMap((p) => missingBuildOutput(p).map((f) => `${p.manifest.name}: ${f}`));
if (missing.length) {
  console.error(`pack-smoke: not built (${missing.join(', ')}); run \`npx nx run-many -t build\` first`);
  process.exit(2);
}
const work = mkdtempSync(join(tmpdir(), 'kpng-pack-smoke-'));
const result = packSmoke(packages, work, (l) => console.log(l));
const failed = result.checks.filter((c) => !c.ok);
for (const c of result.checks)
  console.log(`${c.ok ? 'ok  ' : 'FAIL'} ${c.what}${c.ok ? '' : `\n     ${c.detail.split('\n').join('\n     ')}`}`);
if (process.argv.includes('--keep')) console.log(`kept ${result.project}`);
else rmSync(work, { recursive: true, force: true });
console.log(`${result.checks.length - failed.length} passed, ${failed.length} failed`);
process.exit(failed.length ? 1 : 0);
