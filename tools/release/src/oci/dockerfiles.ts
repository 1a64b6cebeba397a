import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { IMAGES_DIR } from '../docker/images.js';
import { IMAGE_CATALOG, type ImageSpec } from './catalog.js';
import { DOCKERIGNORE, renderDockerfile } from './render-dockerfile.js';

export interface GeneratedFile {
  readonly path: string;
  readonly content: string;
}

/** The files `deploy/images/` must hold for the catalog: a Dockerfile and its .dockerignore per image. */
export function generatedDockerFiles(catalog: readonly ImageSpec[] = IMAGE_CATALOG): GeneratedFile[] {
  return catalog.flatMap((spec) => [
    { path: join(IMAGES_DIR, spec.name, 'Dockerfile'), content: renderDockerfile(spec) },
    { path: join(IMAGES_DIR, spec.name, 'Dockerfile.dockerignore'), content: DOCKERIGNORE },
  ]);
}

export function writeDockerFiles(files: readonly GeneratedFile[] = generatedDockerFiles()): void {
  for (const f of files) {
    mkdirSync(join(f.path, '..'), { recursive: true });
    writeFileSync(f.path, f.content);
  }
}
