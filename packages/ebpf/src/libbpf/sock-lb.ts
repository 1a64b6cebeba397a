import { closeSync, openSync } from 'node:fs';
import { MAP_NAMES, SIZES, type MapName } from '../maps/layout.js';
import { BpfMap } from './bpf-map.js';
import { BpfError } from './errors.js';
import { libbpf, type Libbpf } from './ffi.js';

/** The object every build makes (scripts/build-bpf.mjs); the same path from src/ and dist/. */
export const SOCK_LB_OBJECT = new URL('../../dist/bpf/sock_lb.o', import.meta.url).pathname;

/** The programs of bpf/sock_lb.c, each attached to the cgroup at its own hook. */
export const SOCK_LB_PROGRAMS = [
  'kpng_connect4',
  'kpng_connect6',
  'kpng_sendmsg4',
  'kpng_sendmsg6',
  'kpng_recvmsg4',
  'kpng_recvmsg6',
  'kpng_getpeername4',
  'kpng_getpeername6',
] as const;

/**
 * Maximum entries of each map, set before loading. The hash maps are not preallocated (only their
 * bucket arrays: 16 bytes a bucket); the LRU maps (affinity, revnat) are, and evict the oldest.
 * Kernel memory at the defaults (bpftool's memlock): 1 + 1 + 4 MiB, affinity 7.5, revnat 7.5.
 */
export interface MapLimits {
  readonly services4: number;
  readonly services6: number;
  readonly endpoints: number;
  readonly affinity: number;
  readonly revnat: number;
}

export const DEFAULT_MAP_LIMITS: MapLimits = {
  services4: 65_536,
  services6: 65_536,
  endpoints: 262_144,
  affinity: 65_536,
  revnat: 65_536,
};

export interface SockLbOptions {
  readonly objectPath?: string;
  readonly limits?: Partial<MapLimits>;
}

/**
 * The socket load balancer in the kernel: bpf/sock_lb.c's object loaded (its maps created, its
 * programs verified), then attached to one cgroup v2 directory through BPF links. The links and the
 * maps belong to this process: `close()` (or the process's exit) detaches and frees them all.
 */
export class SockLb {
  readonly maps: Readonly<Record<MapName, BpfMap>>;
  #links: unknown[] = [];
  #cgroup: string | undefined;
  #closed = false;

  private constructor(
    private readonly lib: Libbpf,
    private readonly object: unknown,
  ) {
    const maps = {} as Record<MapName, BpfMap>;
    for (const name of MAP_NAMES) {
      const map = lib.findMap(object, name);
      const fd = map === null ? -1 : lib.mapFd(map);
      if (fd < 0) throw new Error(`the BPF object has no map ${name}`);
      maps[name] = new BpfMap(lib, name, fd, SIZES[name].key, SIZES[name].value);
    }
    this.maps = maps;
  }

  /** Opens and loads the object: maps created with `limits`, programs through the verifier. */
  static load(options: SockLbOptions = {}): SockLb {
    const lib = libbpf();
    const path = options.objectPath ?? SOCK_LB_OBJECT;
    const object = lib.openFile(path, null);
    if (object === null) throw new BpfError(`open ${path}`, lib.errno());
    try {
      const limits = { ...DEFAULT_MAP_LIMITS, ...options.limits };
      for (const [name, entries] of Object.entries(limits)) {
        if (!Number.isInteger(entries) || entries < 1 || entries > 1 << 26)
          throw new Error(`map ${name}: ${entries} entries is not in 1..${1 << 26}`);
        const map = lib.findMap(object, name);
        if (map === null) throw new Error(`the BPF object has no map ${name}`);
        const rc = lib.setMaxEntries(map, entries);
        if (rc !== 0) throw new BpfError(`size map ${name}`, -rc);
      }
      const rc = lib.load(object);
      if (rc !== 0) throw new BpfError(`load ${path} (the verifier's log is on stderr)`, -rc);
      return new SockLb(lib, object);
    } catch (e) {
      lib.close(object);
      throw e;
    }
  }

  get attachedTo(): string | undefined {
    return this.#cgroup;
  }

  /**
   * Attaches every program to the cgroup v2 directory `cgroup` (a path already checked by
   * `resolveCgroup`); all or none: a refused attachment detaches those made before it.
   */
  attach(cgroup: string): void {
    if (this.#closed) throw new Error('the socket load balancer is closed');
    if (this.#cgroup !== undefined) throw new Error(`already attached to ${this.#cgroup}`);
    const fd = openSync(cgroup, 'r');
    try {
      for (const name of SOCK_LB_PROGRAMS) {
        const program = this.lib.findProgram(this.object, name);
        if (program === null) throw new Error(`the BPF object has no program ${name}`);
        const link = this.lib.attachCgroup(program, fd);
        if (link === null) throw new BpfError(`attach ${name} to ${cgroup}`, this.lib.errno());
        this.#links.push(link);
      }
      this.#cgroup = cgroup;
    } catch (e) {
      this.detach();
      throw e;
    } finally {
      closeSync(fd);
    }
  }

  /** Detaches every program (idempotent); the maps stay. */
  detach(): void {
    for (const link of this.#links.splice(0)) this.lib.destroyLink(link);
    this.#cgroup = undefined;
  }

  /** Detaches and frees the object and its maps (idempotent). */
  close(): void {
    if (this.#closed) return;
    this.detach();
    this.#closed = true;
    this.lib.close(this.object);
  }
}
