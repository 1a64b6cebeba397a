import { runSync, spawnChild } from '@kpng/kit';
import { createReadStream, mkdirSync } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { createGunzip, createGzip } from 'node:zlib';

/** The parts of an OCI image config (`config` of the image-spec) the Dockerfile also declares. */
export interface OciImageConfig {
  readonly User?: string;
  readonly Entrypoint?: readonly string[];
  readonly Cmd?: readonly string[] | null;
  readonly Env?: readonly string[];
  readonly ExposedPorts?: Readonly<Record<string, object>>;
  readonly Labels?: Readonly<Record<string, string>>;
  readonly WorkingDir?: string;
}

export interface UnpackedImage {
  /** `org.opencontainers.image.ref.name` of the archive's manifest. */
  readonly reference: string;
  readonly config: OciImageConfig;
  readonly os: string;
  readonly architecture: string;
  /** The image's filesystem: every layer extracted in order. */
  readonly root: string;
}

interface Descriptor {
  readonly digest: string;
  readonly mediaType: string;
  readonly annotations?: Record<string, string>;
}

/**
 * Unpacks the filesystem of an OCI archive (`buildah commit ... oci-archive:`) into `root`, layer
 * by layer straight out of the archive (owners kept as numbers, as a runtime would), and returns
 * its config. One image per archive; the recipe writes a single layer from scratch, so there are
 * no whiteouts to apply.
 */
export function unpackOciArchive(archive: string, root: string): UnpackedImage {
  mkdirSync(root, { recursive: true });
  const member = <T>(path: string): T => JSON.parse(sh('tar -xOf "$0" "$1"', [archive, path])) as T;
  const blob = (d: Descriptor): string => `blobs/${d.digest.replace(':', '/')}`;
  const index = member<{ manifests: Descriptor[] }>('index.json');
  if (index.manifests.length !== 1) throw new Error(`${archive}: ${index.manifests.length} manifests, expected one`);
  const top = index.manifests[0]!;
  const manifest = member<{ config: Descriptor; layers: Descriptor[] }>(blob(top));
  const image = member<{ os: string; architecture: string; config?: OciImageConfig }>(blob(manifest.config));
  for (const layer of manifest.layers) {
    const z = layer.mediaType.endsWith('+gzip') ? 'z' : '';
    sh(`tar -xOf "$0" "$1" | tar --numeric-owner -x${z}f - -C "$2"`, [archive, blob(layer), root]);
  }
  return {
    reference: top.annotations?.['org.opencontainers.image.ref.name'] ?? '',
    config: image.config ?? {},
    os: image.os,
    architecture: image.architecture,
    root,
  };
}

/** What an image weighs: its layers as stored, and as a registry serves them to a node. */
export interface ImageSize {
  /** The layers' bytes unpacked (tar streams, uncompressed). */
  readonly uncompressedBytes: number;
  /**
   * The layers gzip-compressed at level 6 (layers already gzipped count as they are): what
   * `skopeo copy`/`buildah push` send a registry by default, so what every node pulls.
   */
  readonly compressedBytes: number;
}

/** Measures an OCI archive's layers (each streamed out of the archive, nothing written to disk). */
export async function imageSize(archive: string): Promise<ImageSize> {
  const member = <T>(path: string): T => JSON.parse(sh('tar -xOf "$0" "$1"', [archive, path])) as T;
  const blob = (d: Descriptor): string => `blobs/${d.digest.replace(':', '/')}`;
  const index = member<{ manifests: Descriptor[] }>('index.json');
  const manifest = member<{ layers: Descriptor[] }>(blob(index.manifests[0]!));
  let uncompressedBytes = 0;
  let compressedBytes = 0;
  for (const layer of manifest.layers) {
    const gzipped = layer.mediaType.endsWith('+gzip');
    const counted = { raw: 0, gz: 0 };
    // A gzipped layer is counted as it is and unzipped; another is counted and zipped.
    const [read, made] = gzipped ? (['gz', 'raw'] as const) : (['raw', 'gz'] as const);
    const zlib = gzipped ? createGunzip() : createGzip({ level: 6 });
    zlib.on('data', (chunk: Buffer) => (counted[made] += chunk.length));
    const zlibDone = new Promise<void>((resolve, reject) => zlib.once('end', resolve).once('error', reject));
    zlibDone.catch(() => undefined); // awaited below, once tar has exited
    const tar = spawnChild(['tar', '-xOf', archive, blob(layer)], {
      onStdout: (chunk) => {
        counted[read] += chunk.length;
        zlib.write(chunk);
      },
      onStderr: (chunk) => process.stderr.write(chunk),
    });
    const exit = await tar.exited;
    zlib.end();
    await zlibDone;
    if (exit.exitCode !== 0) throw new Error(`${archive}: cannot read ${blob(layer)}`);
    uncompressedBytes += counted.raw;
    compressedBytes += counted.gz;
  }
  return { uncompressedBytes, compressedBytes };
}

/** A file's size gzip-compressed at level 6 (streamed, nothing written): e.g. the Windows image's one layer. */
export async function gzipBytes(file: string): Promise<number> {
  let bytes = 0;
  const zlib = createGzip({ level: 6 });
  zlib.on('data', (chunk: Buffer) => (bytes += chunk.length));
  const done = new Promise<void>((resolve, reject) => zlib.once('end', resolve).once('error', reject));
  await pipeline(createReadStream(file), zlib).catch((err: unknown) => {
    throw new Error(`gzip ${file}: ${err instanceof Error ? err.message : String(err)}`);
  });
  await done;
  return bytes;
}

function sh(script: string, args: readonly string[]): string {
  const r = runSync(['bash', '-c', `set -o pipefail; ${script}`, ...args], {
    timeoutMs: 300_000,
    maxBuffer: 16 * 1024 * 1024,
  });
  if (r.exitCode !== 0) throw new Error(`${script} (${args.join(' ')}) failed (${r.exitCode}): ${r.stderr}`);
  return r.stdout;
}
