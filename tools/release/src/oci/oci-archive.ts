import { spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';

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
