import { existsSync, readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { images } from '../docker/images.js';
import { REPO_ROOT } from '../workspace.js';
import { IMAGE_CATALOG } from './catalog.js';
import { generatedDockerFiles } from './dockerfiles.js';

describe('deploy/images is generated from the catalog', () => {
  it('one folder per catalog entry, and no other', () => {
    expect(images().map((i) => i.name).sort()).toEqual(IMAGE_CATALOG.map((s) => s.name).sort());
  });

  it.each(generatedDockerFiles().map((f) => [relative(REPO_ROOT, f.path), f] as const))('%s is current (npm run -w @kpng/release images -- dockerfiles)', (_p, f) => {
    expect(existsSync(f.path)).toBe(true);
    expect(readFileSync(f.path, 'utf8')).toBe(f.content);
  });
});
