import { closeSync, openSync, readdirSync, readFileSync, readSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { BpfError } from './errors.js';
import type { Libbpf } from './ffi.js';
import type { StaleUdpSweep } from '../backend/kernel.js';

/** bpf/stale_udp.c with bpf_sock_destroy (Linux 6.5), and without (counts only). */
export const STALE_UDP_OBJECTS = {
  destroy: new URL('../../dist/bpf/stale_udp_destroy.o', import.meta.url).pathname,
  count: new URL('../../dist/bpf/stale_udp.o', import.meta.url).pathname,
} as const;

/** The most (Service, endpoint) pairs one walk carries (the object's `stale` map size). */
export const STALE_BATCH = 4096;
/** The most network namespaces one sweep walks, and processes it reads to find them (a bound for huge nodes). */
export const MAX_NAMESPACES = 4096;
const MAX_PROCESSES = 65_536;

const CLONE_NEWNET = 0x40000000;
const PAIR_BYTES = 40;

/**
 * The stale UDP walker (bpf/stale_udp.c): an `iter/udp` program sharing sock_lb's `revnat` map. A
 * sweep puts the (Service address, endpoint) pairs a sync removed into its `stale` map and walks the
 * UDP sockets of every network namespace that has a process in the attached cgroup (a BPF iterator
 * walks the namespace of the process creating it: this thread enters each with setns(2) for that
 * one call, and comes back before anything else runs). Connected sockets balanced to a stale pair
 * are destroyed where the kernel has `bpf_sock_destroy` (6.5); elsewhere they are only counted.
 */
export class StaleUdpWalker {
  private constructor(
    private readonly lib: Libbpf,
    private readonly object: unknown,
    private readonly link: unknown,
    private readonly stale: number,
    private readonly counts: number,
    /** false: the kernel lacks bpf_sock_destroy, the walker only counts. */
    readonly destroys: boolean,
  ) {}

  /**
   * Loads the destroying walker, else the counting one (a kernel without the kfunc refuses the
   * first object), with `revnat` the socket load balancer's map. Throws when neither loads (no
   * BPF iterators: Linux < 5.9).
   */
  static load(lib: Libbpf, revnatFd: number): StaleUdpWalker {
    let first: unknown;
    for (const [kind, path] of Object.entries(STALE_UDP_OBJECTS)) {
      try {
        return StaleUdpWalker.#open(lib, path, revnatFd, kind === 'destroy');
      } catch (e) {
        first ??= e;
      }
    }
    throw first as Error;
  }

  static #open(lib: Libbpf, path: string, revnatFd: number, destroys: boolean): StaleUdpWalker {
    const object = lib.openFile(path, null);
    if (object === null) throw new BpfError(`open ${path}`, lib.errno());
    try {
      const revnat = lib.findMap(object, 'revnat');
      if (revnat === null) throw new Error(`${path} has no map revnat`);
      let rc = lib.reuseFd(revnat, revnatFd);
      if (rc !== 0) throw new BpfError(`reuse map revnat in ${path}`, -rc);
      rc = lib.load(object);
      if (rc !== 0) throw new BpfError(`load ${path}`, -rc);
      const program = lib.findProgram(object, 'kpng_stale_udp');
      if (program === null) throw new Error(`${path} has no program kpng_stale_udp`);
      const link = lib.attachIter(program, null);
      if (link === null) throw new BpfError(`attach the UDP iterator of ${path}`, lib.errno());
      const fd = (name: string): number => {
        const map = lib.findMap(object, name);
        const n = map === null ? -1 : lib.mapFd(map);
        if (n < 0) throw new Error(`${path} has no map ${name}`);
        return n;
      };
      return new StaleUdpWalker(lib, object, link, fd('stale'), fd('counts'), destroys);
    } catch (e) {
      lib.close(object);
      throw e;
    }
  }

  /**
   * Walks every namespace of `cgroup`'s processes for sockets balanced to one of `pairs` (40-byte
   * stale keys: Service address and port, endpoint address and port, as the maps hold them).
   */
  sweep(cgroup: string, pairs: readonly Buffer[]): StaleUdpSweep {
    const namespaces = cgroupNamespaces(cgroup);
    const total = { found: 0, destroyed: 0, failed: 0, namespaces: namespaces.paths.length };
    const zero = Buffer.alloc(4);
    for (let start = 0; start < pairs.length; start += STALE_BATCH) {
      const batch = pairs.slice(start, start + STALE_BATCH);
      for (const pair of batch) {
        if (pair.length !== PAIR_BYTES) throw new Error(`a stale pair is ${PAIR_BYTES} bytes, not ${pair.length}`);
        const rc = this.lib.update(this.stale, pair, zero, 0);
        if (rc !== 0) throw new BpfError('update stale', -rc);
      }
      try {
        for (let i = 0; i < 3; i++) this.#setCount(i, 0n);
        for (const path of namespaces.paths) this.#walk(path);
        total.found += Number(this.#count(0));
        total.destroyed += Number(this.#count(1));
        total.failed += Number(this.#count(2));
      } finally {
        for (const pair of batch) this.lib.remove(this.stale, pair);
      }
    }
    return { ...total, destroys: this.destroys, skippedNamespaces: namespaces.skipped };
  }

  /** One iterator in the namespace at `path` (this thread there only for bpf_iter_create), read to its end. */
  #walk(path: string): void {
    let target: number;
    try {
      target = openSync(path, 'r');
    } catch {
      return; // the process exited since it was listed: its namespace may be gone with it
    }
    const self = openSync('/proc/thread-self/ns/net', 'r');
    let iter: number;
    try {
      if (this.lib.setns(target, CLONE_NEWNET) !== 0) throw new BpfError(`setns(${path})`, this.lib.errno());
      try {
        iter = this.lib.iterCreate(this.lib.linkFd(this.link));
      } finally {
        if (this.lib.setns(self, CLONE_NEWNET) !== 0)
          throw new BpfError('setns back to the original namespace', this.lib.errno());
      }
    } finally {
      closeSync(target);
      closeSync(self);
    }
    if (iter < 0) throw new BpfError(`create the UDP iterator in ${path}`, -iter);
    try {
      // The program prints nothing: reading runs it over the namespace's sockets to the end.
      const buffer = Buffer.alloc(64);
      while (readSync(iter, buffer, 0, buffer.length, null) > 0);
    } finally {
      closeSync(iter);
    }
  }

  #setCount(index: number, value: bigint): void {
    const key = Buffer.alloc(4);
    key.writeUInt32LE(index);
    const v = Buffer.alloc(8);
    v.writeBigUInt64LE(value);
    const rc = this.lib.update(this.counts, key, v, 0);
    if (rc !== 0) throw new BpfError('update counts', -rc);
  }

  #count(index: number): bigint {
    const key = Buffer.alloc(4);
    key.writeUInt32LE(index);
    const v = Buffer.alloc(8);
    const rc = this.lib.lookup(this.counts, key, v);
    if (rc !== 0) throw new BpfError('lookup counts', -rc);
    return v.readBigUInt64LE();
  }

  close(): void {
    this.lib.destroyLink(this.link);
    this.lib.close(this.object);
  }
}

/**
 * The distinct network namespaces of the processes in `cgroup` and below (`/proc/PID/ns/net`, one
 * per namespace inode), at most MAX_NAMESPACES; processes read at most MAX_PROCESSES.
 */
export function cgroupNamespaces(cgroup: string): { paths: string[]; skipped: number } {
  const seen = new Set<string>();
  const paths: string[] = [];
  let skipped = 0;
  let processes = 0;
  const dirs = [cgroup];
  while (dirs.length > 0 && processes < MAX_PROCESSES) {
    const dir = dirs.pop()!;
    let procs: string[];
    let entries: string[];
    try {
      procs = readFileSync(join(dir, 'cgroup.procs'), 'utf8').split('\n');
      entries = readdirSync(dir, { withFileTypes: true })
        .filter((d) => d.isDirectory())
        .map((d) => join(dir, d.name));
    } catch {
      continue; // removed while read
    }
    dirs.push(...entries);
    for (const pid of procs) {
      if (!/^\d+$/.test(pid) || ++processes > MAX_PROCESSES) continue;
      const path = `/proc/${pid}/ns/net`;
      let inode: string;
      try {
        const st = statSync(path);
        inode = `${st.dev}:${st.ino}`;
      } catch {
        continue; // exited
      }
      if (seen.has(inode)) continue;
      seen.add(inode);
      if (paths.length < MAX_NAMESPACES) paths.push(path);
      else skipped++;
    }
  }
  return { paths, skipped };
}
