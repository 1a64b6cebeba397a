import { existsSync, readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { finalStage } from '../docker/dockerfile.js';
import { images } from '../docker/images.js';
import { REPO_ROOT } from '../workspace.js';
import { IMAGE_CATALOG } from './catalog.js';
import { generatedDockerFiles } from './dockerfiles.js';

describe('deploy/images is generated from the catalog', () => {
  it('one folder per catalog entry, and no other Debian-based image', () => {
    // Images on another base (a Windows HostProcess image) cannot come from the Debian recipe:
    // their Dockerfiles are written by hand; the node LTS check still covers them.
    const debian = images().filter((i) => finalStage(i.parsed).from.startsWith('node:'));
    expect(debian.map((i) => i.name).sort()).toEqual(IMAGE_CATALOG.map((s) => s.name).sort());
  });

  it.each(generatedDockerFiles().map((f) => [relative(REPO_ROOT, f.path), f] as const))(
    '%s is current (npm run -w @kpng/release images -- dockerfiles)',
    (_p, f) => {
      expect(existsSync(f.path)).toBe(true);
      expect(readFileSync(f.path, 'utf8')).toBe(f.content);
    },
  );
});
