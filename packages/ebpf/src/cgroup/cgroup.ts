import { existsSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { sep } from 'node:path';

/**
 * Where the cgroup v2 hierarchy is mounted, from `/proc/mounts` (`cgroup2` lines): `/sys/fs/cgroup`
 * on a pure v2 host, `/sys/fs/cgroup/unified` on a v1/v2 hybrid. Never assumed.
 */
export function cgroupV2Mounts(procMounts: string): string[] {
  const mounts: string[] = [];
  for (const line of procMounts.split('\n')) {
    const [, mountPoint, fsType] = line.split(' ');
    // /proc/mounts escapes blanks in paths as octal (\040).
    if (fsType === 'cgroup2' && mountPoint !== undefined)
      mounts.push(mountPoint.replace(/\\([0-7]{3})/g, (_, oct: string) => String.fromCharCode(parseInt(oct, 8))));
  }
  return mounts;
}

export function readCgroupV2Mounts(): string[] {
  return cgroupV2Mounts(readFileSync('/proc/mounts', 'utf8'));
}

/**
 * The operator's `--cgroup-root`, checked: an existing directory inside a cgroup v2 mount (the
 * programs attach there and apply to every process in it and below). Returns its real path;
 * throws a clear error otherwise.
 */
export function resolveCgroup(path: string, mounts: readonly string[] = readCgroupV2Mounts()): string {
  if (mounts.length === 0) throw new Error('no cgroup v2 hierarchy is mounted (/proc/mounts has no cgroup2 line)');
  let real: string;
  try {
    real = realpathSync(path);
  } catch {
    throw new Error(`cgroup ${path} does not exist`);
  }
  if (!statSync(real).isDirectory()) throw new Error(`cgroup ${path} is not a directory`);
  const inside = mounts.some((mount) => real === mount || real.startsWith(mount.endsWith(sep) ? mount : mount + sep));
  if (!inside || !existsSync(`${real}/cgroup.procs`))
    throw new Error(`${path} is not a cgroup v2 directory (cgroup v2 is mounted at ${mounts.join(', ')})`);
  return real;
}
