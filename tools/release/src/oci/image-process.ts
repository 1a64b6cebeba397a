import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { UnpackedImage } from './oci-archive.js';

export interface ImageUser {
  readonly name: string;
  readonly uid: number;
  readonly gid: number;
  readonly home: string;
}

/** The image's `User` (a name, `uid` or `uid:gid`) looked up in the image's own /etc/passwd, as a runtime does. */
export function resolveImageUser(root: string, user = 'root'): ImageUser {
  const [who, group] = user.split(':');
  const entries = readFileSync(join(root, 'etc/passwd'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => l.split(':'));
  const e = entries.find((f) => f[0] === who || f[2] === who);
  if (!e) throw new Error(`user ${JSON.stringify(who)} is not in the image's /etc/passwd`);
  return { name: e[0]!, uid: Number(e[2]), gid: group === undefined ? Number(e[3]) : Number(group), home: e[5] ?? '/' };
}

/**
 * argv (to run inside a network namespace, through the lab's `exec`/`spawn`) that starts `command`
 * the way a container runtime would start it from this image: a private mount namespace with
 * /proc mounted in the image (gone with the process), chroot into the image's filesystem, only the
 * image's environment (plus HOME), as the image's user unless `user` says otherwise.
 */
export function imageArgv(
  image: UnpackedImage,
  command: readonly string[],
  user: string = image.config.User || 'root',
): string[] {
  const u = resolveImageUser(image.root, user);
  const env = [...(image.config.Env ?? [])];
  if (!env.some((e) => e.startsWith('HOME='))) env.push(`HOME=${u.home}`);
  const inside = ['env', '-i', ...env, 'chroot', `--userspec=${u.uid}:${u.gid}`, image.root, ...command];
  const script = 'mount -t proc proc "$0/proc" && exec "$@"';
  return ['unshare', '--mount', '--propagation', 'private', '--', 'sh', '-c', script, image.root, ...inside];
}

/** The image's ENTRYPOINT followed by `args`. */
export function entrypointArgv(image: UnpackedImage, args: readonly string[]): string[] {
  const ep = image.config.Entrypoint;
  if (!ep || ep.length === 0) throw new Error(`${image.reference}: no Entrypoint`);
  return [...ep, ...args];
}
