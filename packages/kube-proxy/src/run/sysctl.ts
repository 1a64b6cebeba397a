/**
 * Writing kernel settings as upstream's `sysctl.SetSysctl` does, in the network namespace kube-proxy
 * programs: its own (the host's, under `hostNetwork: true`), or `KPNG_NETNS`'s for tests and labs,
 * so a test never writes the root namespace's settings.
 */
import { readFile, writeFile } from 'node:fs/promises';
import type { Logger } from '@kpng/core';
import { inNetns, processExecer, runChecked, type Execer } from '@kpng/kit';
import type { SysctlSetting } from './conntrack.js';

/** Reads and writes `/proc/sys/<name>` (e.g. `net/netfilter/nf_conntrack_max`). */
export interface SysctlAccess {
  read(name: string): Promise<number>;
  write(name: string, value: number): Promise<void>;
}

export function sysctlAccess(netns: string | undefined, execer: Execer = processExecer): SysctlAccess {
  const path = (name: string) => `/proc/sys/${name}`;
  if (netns === undefined) {
    return {
      read: async (name) => Number((await readFile(path(name), 'utf8')).trim()),
      write: (name, value) => writeFile(path(name), String(value)),
    };
  }
  // /proc/sys/net shows the namespace of the process reading it: read and write from inside.
  const inside = (script: string, ...args: string[]) =>
    runChecked(execer, inNetns(netns, ['sh', '-c', script, 'sh', ...args]));
  return {
    read: async (name) => Number((await inside('cat "$1"', path(name))).stdout.trim()),
    write: async (name, value) => void (await inside('printf %s "$2" > "$1"', path(name), String(value))),
  };
}

/** A setting the kernel refused, by name, and whether that stops the start. */
export interface SysctlFailure {
  readonly name: string;
  readonly value: number;
  readonly fatal: boolean;
  readonly error: string;
}

/**
 * Applies each setting whose current value differs (upstream only writes what changes), one at a
 * time, every one tried. A refusal (read-only in a namespace, module not loaded, no privilege) is
 * logged by name: an error where the setting is fatal (the caller stops, as upstream's start does),
 * else a warning, and the setting is left as it is.
 */
export async function applySysctls(
  settings: readonly SysctlSetting[],
  access: SysctlAccess,
  log: Logger,
): Promise<{ written: string[]; failed: SysctlFailure[] }> {
  const written: string[] = [];
  const failed: SysctlFailure[] = [];
  for (const { name, value, fatal = false } of settings) {
    try {
      if ((await access.read(name).catch(() => undefined)) === value) continue;
      await access.write(name, value);
      written.push(name);
      log.info('set sysctl', { name, value });
    } catch (e) {
      const error = (e as Error).message.split('\n')[0] ?? '';
      failed.push({ name, value, fatal, error });
      if (fatal) log.error('cannot set sysctl', { name, value, err: error });
      else log.warn('cannot set sysctl; leaving it as it is', { name, value, err: error });
    }
  }
  return { written, failed };
}
