#!/usr/bin/env node
// Writes the generated observability files (Grafana dashboard JSON, PrometheusRule).
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, relative } from 'node:path';
import { generatedFiles } from '../observability/files.js';
import { REPO_ROOT } from '../workspace.js';

for (const [file, text] of Object.entries(generatedFiles())) {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text);
  console.log(`wrote ${relative(REPO_ROOT, file)}`);
}
