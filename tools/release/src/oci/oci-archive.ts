import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

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
 * Unpacks an OCI archive (`buildah commit ... oci-archive:`) into `dir`: the layout in
 * `dir/layout`, the filesystem in `dir/root` (owners kept as numbers, as a runtime would).
 * Whiteouts are refused rather than ignored: the recipe writes one layer, so one means a change.
 */
export function unpackOciArchive(archive: string, dir: string): UnpackedImage {
  const layout = join(dir, 'layout');
  const root = join(dir, 'root');
  mkdirSync(layout, { recursive: true });
  mkdirSync(root, { recursive: true });
  tar(['-xf', archive, '-C', layout]);
  const blob = (d: Descriptor): string => join(layout, 'blobs', ...d.digest.split(':'));
  const json = <T>(file: string): T => JSON.parse(readFileSync(file, 'utf8')) as T;
  const index = json<{ manifests: Descriptor[] }>(join(layout, 'index.json'));
  if (index.manifests.length !== 1) throw new Error(`${archive}: ${index.manifests.length} manifests, expected one`);
  const top = index.manifests[0]!;
  const manifest = json<{ config: Descriptor; layers: Descriptor[] }>(blob(top));
  const image = json<{ os: string; architecture: string; config?: OciImageConfig }>(blob(manifest.config));
  for (const layer of manifest.layers) {
    const listing = tar(['-tf', blob(layer), ...(layer.mediaType.endsWith('+gzip') ? ['-z'] : [])]);
    if (/(^|\/)\.wh\./m.test(listing)) throw new Error(`${archive}: layer ${layer.digest} has whiteouts`);
    tar(['--numeric-owner', '-xf', blob(layer), '-C', root, ...(layer.mediaType.endsWith('+gzip') ? ['-z'] : [])]);
  }
  return {
    reference: top.annotations?.['org.opencontainers.image.ref.name'] ?? '',
    config: image.config ?? {},
    os: image.os,
    architecture: image.architecture,
    root,
  };
}

function tar(args: readonly string[]): string {
  const r = spawnSync('tar', args, { encoding: 'utf8', timeout: 300_000, maxBuffer: 256 * 1024 * 1024 });
  if (r.status !== 0) throw new Error(`tar ${args.join(' ')} failed (${r.status ?? r.error?.message}): ${r.stderr}`);
  return r.stdout;
}
