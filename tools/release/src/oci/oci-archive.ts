import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { Writable } from 'node:stream';
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
    const tar = spawn('tar', ['-xOf', archive, blob(layer)], { stdio: ['ignore', 'pipe', 'inherit'] });
    const exited = new Promise<number | null>((resolve) => tar.once('close', resolve));
    const count = (key: 'raw' | 'gz') =>
      new Writable({
        write(chunk: Buffer, _encoding, done) {
          counted[key] += chunk.length;
          done();
        },
      });
    if (gzipped) {
      tar.stdout.on('data', (chunk: Buffer) => (counted.gz += chunk.length));
      await pipeline(tar.stdout, createGunzip(), count('raw'));
    } else {
      tar.stdout.on('data', (chunk: Buffer) => (counted.raw += chunk.length));
      await pipeline(tar.stdout, createGzip({ level: 6 }), count('gz'));
    }
    if ((await exited) !== 0) throw new Error(`${archive}: cannot read ${blob(layer)}`);
    uncompressedBytes += counted.raw;
    compressedBytes += counted.gz;
  }
  return { uncompressedBytes, compressedBytes };
}

function sh(script: string, args: readonly string[]): string {
  const r = spawnSync('bash', ['-c', `set -o pipefail; ${script}`, ...args], {
    encoding: 'utf8',
    timeout: 300_000,
    maxBuffer: 16 * 1024 * 1024,
  });
  if (r.status !== 0)
    throw new Error(`${script} (${args.join(' ')}) failed (${r.status ?? r.error?.message}): ${r.stderr}`);
  return r.stdout;
}
