import { closeSync, openSync } from 'node:fs';
import { MAP_NAMES, SIZES, type MapName } from '../maps/layout.js';
import { BpfMap } from './bpf-map.js';
import { BpfError } from './errors.js';
import { libbpf, type Libbpf } from './ffi.js';
import { StaleUdpWalker } from './stale-udp.js';
import type { StaleUdpSweep } from '../backend/kernel.js';

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
 * bucket arrays: 16 bytes a bucket, the size rounded up to a power of two); the LRU maps (affinity,
 * revnat) are, and evict the oldest. The Service and endpoint maps start at these sizes and the
 * backend grows them from the state (`resize`); affinity and revnat keep theirs (their
 * preallocated size: docs/PERFORMANCE.md).
 */
export interface MapLimits {
  readonly services4: number;
  readonly services6: number;
  readonly endpoints: number;
  readonly affinity: number;
  readonly revnat: number;
}

export const DEFAULT_MAP_LIMITS: MapLimits = {
  services4: 4096,
  services6: 4096,
  endpoints: 16_384,
  affinity: 65_536,
  revnat: 65_536,
};

/** The most entries any map is given: a hash map's bucket array is then 256 MiB. */
export const MAX_MAP_ENTRIES = 1 << 24;

export interface SockLbOptions {
  readonly objectPath?: string;
  readonly limits?: Partial<MapLimits>;
}

/** The maps that outlive a resize: per-client and per-socket state, not the Services. */
const KEPT_MAPS = ['affinity', 'revnat'] as const;

/**
 * bpf/sock_lb.c's object opened, its maps sized (`limits`) or taken over from a loaded object
 * (`reuse`: map name -> fd), and loaded (maps created, programs verified). Closed again on failure.
 */
function openObject(lib: Libbpf, path: string, limits: MapLimits, reuse: Readonly<Record<string, number>>): unknown {
  const object = lib.openFile(path, null);
  if (object === null) throw new BpfError(`open ${path}`, lib.errno());
  try {
    for (const [name, entries] of Object.entries(limits)) {
      if (!Number.isInteger(entries) || entries < 1 || entries > MAX_MAP_ENTRIES)
        throw new Error(`map ${name}: ${entries} entries is not in 1..${MAX_MAP_ENTRIES}`);
      const map = lib.findMap(object, name);
      if (map === null) throw new Error(`the BPF object has no map ${name}`);
      const rc = lib.setMaxEntries(map, entries);
      if (rc !== 0) throw new BpfError(`size map ${name}`, -rc);
    }
    for (const [name, fd] of Object.entries(reuse)) {
      const map = lib.findMap(object, name);
      if (map === null) throw new Error(`the BPF object has no map ${name}`);
      const rc = lib.reuseFd(map, fd);
      if (rc !== 0) throw new BpfError(`reuse map ${name}`, -rc);
    }
    const rc = lib.load(object);
    if (rc !== 0) throw new BpfError(`load ${path} (the verifier's log is on stderr)`, -rc);
    return object;
  } catch (e) {
    lib.close(object);
    throw e;
  }
}

function mapFd(lib: Libbpf, object: unknown, name: string): number {
  const map = lib.findMap(object, name);
  const fd = map === null ? -1 : lib.mapFd(map);
  if (fd < 0) throw new Error(`the BPF object has no map ${name}`);
  return fd;
}

function mapsOf(lib: Libbpf, object: unknown): Record<MapName, BpfMap> {
  const maps = {} as Record<MapName, BpfMap>;
  for (const name of MAP_NAMES)
    maps[name] = new BpfMap(lib, name, mapFd(lib, object, name), SIZES[name].key, SIZES[name].value);
  return maps;
}

/**
 * The socket load balancer in the kernel: bpf/sock_lb.c's object loaded (its maps created, its
 * programs verified), then attached to one cgroup v2 directory through BPF links. The links and the
 * maps belong to this process: `close()` (or the process's exit) detaches and frees them all.
 */
export class SockLb {
  #object: unknown;
  #maps: Readonly<Record<MapName, BpfMap>>;
  #limits: MapLimits;
  #links: unknown[] = [];
  #cgroup: string | undefined;
  #closed = false;
  #walker: StaleUdpWalker | undefined;
  #walkerError: Error | undefined;

  private constructor(
    private readonly lib: Libbpf,
    private readonly path: string,
    object: unknown,
    limits: MapLimits,
  ) {
    this.#object = object;
    this.#limits = limits;
    this.#maps = mapsOf(lib, object);
  }

  /** Opens and loads the object: maps created with `limits`, programs through the verifier. */
  static load(options: SockLbOptions = {}): SockLb {
    const lib = libbpf();
    const path = options.objectPath ?? SOCK_LB_OBJECT;
    const limits = { ...DEFAULT_MAP_LIMITS, ...options.limits };
    const object = openObject(lib, path, limits, {});
    try {
      return new SockLb(lib, path, object, limits);
    } catch (e) {
      lib.close(object);
      throw e;
    }
  }

  /** The Service and endpoint maps the programs use now (a resize replaces them). */
  get maps(): Readonly<Record<MapName, BpfMap>> {
    return this.#maps;
  }

  get limits(): MapLimits {
    return this.#limits;
  }

  /** max_entries of the Service and endpoint maps. */
  get capacity(): Readonly<Record<MapName, number>> {
    const { services4, services6, endpoints } = this.#limits;
    return { services4, services6, endpoints };
  }

  /**
   * Gives the Service and endpoint maps new sizes while the programs run. A map's max_entries is
   * fixed at creation, so: the object is loaded again with the new sizes (its affinity and revnat
   * maps are this one's, taken over by fd: clients keep their endpoints, sockets their Service
   * address), `populate` fills the new maps while no program reads them, then each cgroup link is
   * switched to the new object's program (`BPF_LINK_UPDATE`: the hook always has a program, never
   * none and never two), and the old object and its maps are freed. A failure at any step leaves
   * the old object attached and its maps unchanged (links already switched are switched back).
   */
  async resize(
    capacity: Partial<Record<MapName, number>>,
    populate: (maps: Readonly<Record<MapName, BpfMap>>) => Promise<void>,
  ): Promise<void> {
    if (this.#closed) throw new Error('the socket load balancer is closed');
    const limits = { ...this.#limits, ...capacity };
    const reuse = Object.fromEntries(KEPT_MAPS.map((name) => [name, mapFd(this.lib, this.#object, name)]));
    const object = openObject(this.lib, this.path, limits, reuse);
    let switched = 0;
    let maps: Record<MapName, BpfMap>;
    try {
      maps = mapsOf(this.lib, object);
      await populate(maps);
      for (const [i, link] of this.#links.entries()) {
        const name = SOCK_LB_PROGRAMS[i]!;
        const program = this.lib.findProgram(object, name);
        if (program === null) throw new Error(`the BPF object has no program ${name}`);
        const rc = this.lib.updateLink(link, program);
        if (rc !== 0) throw new BpfError(`switch ${name} to the resized maps`, -rc);
        switched++;
      }
    } catch (e) {
      for (const [i, link] of this.#links.slice(0, switched).entries())
        this.lib.updateLink(link, this.lib.findProgram(this.#object, SOCK_LB_PROGRAMS[i]!));
      this.lib.close(object);
      throw e;
    }
    const old = this.#object;
    this.#object = object;
    this.#maps = maps;
    this.#limits = limits;
    this.lib.close(old);
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
        const program = this.lib.findProgram(this.#object, name);
        if (program === null) throw new Error(`the BPF object has no program ${name}`);
        const link = this.lib.attachCgroup(program, fd);
        if (link === null) throw new BpfError(`attach ${name} to ${cgroup}`, this.lib.errno());
        this.#links.push(link);
      }
      this.#cgroup = cgroup;
      this.#loadWalker();
    } catch (e) {
      this.detach();
      throw e;
    } finally {
      closeSync(fd);
    }
  }

  /**
   * The stale UDP walker (bpf/stale_udp.c) over this object's revnat map: the destroying one where
   * the kernel has bpf_sock_destroy, else the counting one; none (with the reason kept, see
   * `staleUdpUnavailable`) on a kernel without BPF iterators. revnat outlives resizes, so one walker
   * serves every object this load balancer swaps in.
   */
  #loadWalker(): void {
    try {
      this.#walker = StaleUdpWalker.load(this.lib, mapFd(this.lib, this.#object, 'revnat'));
    } catch (e) {
      this.#walkerError = e as Error;
    }
  }

  /** true: stale connected UDP sockets are destroyed; false: only counted; undefined: not attached. */
  get destroysStaleUdp(): boolean | undefined {
    return this.#walker?.destroys;
  }

  /** Why no stale UDP walker was loaded (a kernel without BPF iterators), if so. */
  get staleUdpUnavailable(): Error | undefined {
    return this.#walkerError;
  }

  staleUdp(pairs: readonly Buffer[]): StaleUdpSweep | undefined {
    if (this.#walker === undefined || this.#cgroup === undefined) return undefined;
    return this.#walker.sweep(this.#cgroup, pairs);
  }

  /** Detaches every program (idempotent); the maps stay. */
  detach(): void {
    for (const link of this.#links.splice(0)) this.lib.destroyLink(link);
    this.#walker?.close();
    this.#walker = undefined;
    this.#cgroup = undefined;
  }

  /** Detaches and frees the object and its maps (idempotent). */
  close(): void {
    if (this.#closed) return;
    this.detach();
    this.#closed = true;
    this.lib.close(this.#object);
  }
}
