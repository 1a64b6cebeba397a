import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { runSync } from '@kpng/kit';
import { imageSize } from './oci-archive.js';

const work = mkdtempSync(join(tmpdir(), 'kpng-image-size-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** An OCI archive by hand: one manifest, the given layers (their bytes and media types). */
function archive(name: string, layers: ReadonlyArray<{ bytes: Buffer; mediaType: string }>): string {
  const dir = join(work, name);
  mkdirSync(join(dir, 'blobs', 'sha256'), { recursive: true });
  const put = (bytes: Buffer) => {
    const hex = createHash('sha256').update(bytes).digest('hex');
    writeFileSync(join(dir, 'blobs', 'sha256', hex), bytes);
    return { digest: `sha256:${hex}`, size: bytes.length };
  };
  const config = put(Buffer.from(JSON.stringify({ os: 'linux', architecture: 'amd64', config: {} })));
  const manifest = put(
    Buffer.from(
      JSON.stringify({
        schemaVersion: 2,
        config: { mediaType: 'application/vnd.oci.image.config.v1+json', ...config },
        layers: layers.map((l) => ({ mediaType: l.mediaType, ...put(l.bytes) })),
      }),
    ),
  );
  writeFileSync(join(dir, 'oci-layout'), '{"imageLayoutVersion":"1.0.0"}');
  writeFileSync(
    join(dir, 'index.json'),
    JSON.stringify({
      schemaVersion: 2,
      manifests: [{ mediaType: 'application/vnd.oci.image.manifest.v1+json', ...manifest }],
    }),
  );
  const out = join(work, `${name}.oci.tar`);
  expect(runSync(['tar', '-cf', out, '-C', dir, 'oci-layout', 'index.json', 'blobs']).exitCode).toBe(0);
  return out;
}

describe('imageSize', () => {
  // Compressible, like a filesystem: repeated text with some noise.
  const layer = Buffer.from(Array.from({ length: 4000 }, (_, i) => `line ${i % 97} of a file\n`).join(''));
  const gzipped = gzipSync(layer, { level: 6 });

  it('counts an uncompressed layer as is and gzip-compressed at level 6', async () => {
    const size = await imageSize(
      archive('plain', [{ bytes: layer, mediaType: 'application/vnd.oci.image.layer.v1.tar' }]),
    );
    expect(size.uncompressedBytes).toBe(layer.length);
    expect(size.compressedBytes).toBeLessThan(layer.length / 4);
    expect(size.compressedBytes).toBe(gzipped.length);
  });

  it('counts a gzipped layer as stored, and unpacked for its uncompressed size; layers add up', async () => {
    const size = await imageSize(
      archive('mixed', [
        { bytes: gzipped, mediaType: 'application/vnd.oci.image.layer.v1.tar+gzip' },
        { bytes: layer, mediaType: 'application/vnd.oci.image.layer.v1.tar' },
      ]),
    );
    expect(size).toEqual({ uncompressedBytes: 2 * layer.length, compressedBytes: 2 * gzipped.length });
  });
});
