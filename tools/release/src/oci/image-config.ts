import { INSTALL_ROOT } from '../docker/images.js';
import type { ImageSpec } from './catalog.js';
import { NODE_RUNTIME } from './node-runtime.js';

/** Both build paths share these: the Debian release, the install root, and the image metadata. */
export const DEBIAN_SUITE = 'bookworm';
export const BASE_IMAGE = `node:${NODE_RUNTIME.version}-${DEBIAN_SUITE}-slim`;
export { INSTALL_ROOT };
/** The official node image's PATH and `node` user (uid/gid 1000), which the recipe recreates. */
export const IMAGE_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';
export const NODE_USER = { name: 'node', uid: 1000, gid: 1000, home: '/home/node', shell: '/bin/bash' } as const;
/** package.json of /opt/kpng, where the tarballs are installed. */
export const INSTALL_MANIFEST = { name: 'kpng-image', private: true } as const;
/**
 * `NODE_OPTIONS=--max-semi-space-size=16`: Node 24's V8 grows the young generation to 128 MiB (two
 * 64 MiB semi-spaces), and a proxy's first sync keeps most of what it allocates, so each scavenge
 * copies up to 64 MiB and RSS runs well above Node 20's. Capped at 16 MiB per semi-space, s10k
 * kpng-nft peaks lower, with shorter first-sync stalls and the same CPU (the figures:
 * docs/PERFORMANCE.md). The size is fixed when the isolate starts, so it is the
 * launcher's setting; an environment variable, so a DaemonSet's `env` can change it.
 * `--jitless` was measured and left out: ~11 MiB less RSS at idle (0.88x), but the compat binary's
 * first sync took 1.48x the CPU at s1k and 2.94x at s10k (docs/PERFORMANCE.md, "Figures behind
 * choices in the code").
 */
export const IMAGE_ENV: Readonly<Record<string, string>> = {
  NODE_ENV: 'production',
  NODE_OPTIONS: '--max-semi-space-size=16',
};

/**
 * `USER` of the runtime: numeric for the unprivileged user, so that a pod's `runAsNonRoot: true`
 * can be verified by the kubelet (it refuses a non-numeric user it cannot resolve).
 */
export function imageUser(spec: ImageSpec): string {
  return spec.user === 'root' ? 'root' : `${NODE_USER.uid}:${NODE_USER.gid}`;
}

/** The runtime's working directory: `/`, as the node base image leaves it, stated so both paths agree. */
export const IMAGE_WORKDIR = '/';

export function imageLabels(spec: ImageSpec): Record<string, string> {
  return {
    'org.opencontainers.image.title': spec.name,
    'org.opencontainers.image.description': spec.summary,
    'org.opencontainers.image.licenses': 'Apache-2.0',
  };
}
