/**
 * The maps of kpng's socket load balancer as a running backend holds them, found from outside that
 * process (`explain`): the programs attached to the cgroup at the connect4 and connect6 hooks
 * (`BPF_PROG_QUERY`, the cgroup's own list), kpng's among them by name, then their maps by id, opened
 * read-only (`BPF_F_RDONLY`). The backend pins nothing and serves nothing for this: the kernel's
 * ids are the way in, readable by root (CAP_SYS_ADMIN), and nothing here writes.
 */
import { closeSync, openSync } from 'node:fs';
import koffi from 'koffi';
import { SIZES, STATE_SIZES } from '../maps/layout.js';
import { BpfMap } from '../libbpf/bpf-map.js';
import { BpfError } from '../libbpf/errors.js';
import type { Libbpf } from '../libbpf/ffi.js';

/** The connect hooks (BPF_CGROUP_INET4_CONNECT, _INET6_CONNECT) and kpng's program at each: between them they use every map. */
const HOOKS = [
  [10, 'kpng_connect4'],
  [11, 'kpng_connect6'],
] as const;
const BPF_F_RDONLY = 1 << 3;
/** A cgroup hook holds at most 64 programs (the kernel's BPF_CGROUP_MAX_PROGS). */
const MAX_PROGS = 64;
/** sock_lb.o has five maps; a program with more is not kpng's. */
const MAX_MAP_IDS = 16;
/** struct bpf_prog_info up to and including `name` (the kernel copies what fits). */
const PROG_INFO_BYTES = 80;
/** struct bpf_map_info up to and including `name`. */
const MAP_INFO_BYTES = 40;

const LAYOUTS = { ...SIZES, ...STATE_SIZES };
export type ExplainMapName = keyof typeof LAYOUTS;

export interface AttachedLb {
  /** The kernel ids of its connect4 and connect6 programs. */
  readonly progIds: readonly number[];
  readonly maps: Partial<Record<ExplainMapName, BpfMap>>;
  /** Each map's max_entries as the kernel reports it. */
  readonly maxEntries: Partial<Record<ExplainMapName, number>>;
}

export interface Attached {
  /** kpng's objects attached to the cgroup (programs grouped by the maps they share): one normally. */
  readonly lbs: readonly AttachedLb[];
  /** Closes every fd opened. */
  close(): void;
}

const nameOf = (info: Buffer, offset: number): string => {
  const bytes = info.subarray(offset, offset + 16);
  const end = bytes.indexOf(0);
  return bytes.toString('latin1', 0, end < 0 ? 16 : end);
};

/** kpng's socket load balancers attached to the cgroup directory `cgroup` (already resolved). */
export function openAttached(lib: Libbpf, cgroup: string): Attached {
  const fds: number[] = [];
  const close = (): void => {
    for (const fd of fds.splice(0)) closeSync(fd);
  };
  try {
    const cgroupFd = openSync(cgroup, 'r');
    fds.push(cgroupFd);
    const opened = new Map<number, OpenedMap>(); // map id -> opened once
    // One object's programs share its maps: grouped by the endpoints map's id.
    const objects = new Map<number, { progIds: number[]; maps: Map<string, OpenedMap> }>();
    for (const [hook, program] of HOOKS) {
      const ids = Buffer.alloc(4 * MAX_PROGS);
      const count: [number] = [MAX_PROGS];
      const rc = lib.progQuery(cgroupFd, hook, 0, [0], ids, count);
      if (rc !== 0) throw new BpfError(`query the ${program} hook's programs of ${cgroup}`, -rc);
      for (let i = 0; i < Math.min(count[0], MAX_PROGS); i++) {
        const progId = ids.readUInt32LE(4 * i);
        const maps = openProgram(lib, progId, program, fds, opened);
        const endpoints = maps?.get('endpoints');
        if (maps === undefined || endpoints === undefined) continue;
        const object = objects.get(endpoints.id) ?? { progIds: [] as number[], maps: new Map<string, OpenedMap>() };
        object.progIds.push(progId);
        for (const [name, map] of maps) object.maps.set(name, map);
        objects.set(endpoints.id, object);
      }
    }
    const lbs = [...objects.values()].map(({ progIds, maps }) => ({
      progIds,
      maps: Object.fromEntries([...maps].map(([name, { map }]) => [name, map])),
      maxEntries: Object.fromEntries([...maps].map(([name, { maxEntries }]) => [name, maxEntries])),
    }));
    return { lbs, close };
  } catch (e) {
    close();
    throw e;
  }
}

interface OpenedMap {
  readonly id: number;
  readonly map: BpfMap;
  readonly maxEntries: number;
}

/** The program `id`'s maps by name if it is kpng's `program`; undefined when it is someone else's (or gone). */
function openProgram(
  lib: Libbpf,
  progId: number,
  program: string,
  fds: number[],
  opened: Map<number, OpenedMap>,
): Map<string, OpenedMap> | undefined {
  const fd = lib.progFdById(progId);
  if (fd < 0) {
    if (-fd === ENOENT) return undefined; // detached and freed since the query
    throw new BpfError(`open program ${progId}`, -fd);
  }
  fds.push(fd);
  const mapIds = koffi.alloc('uint32_t', MAX_MAP_IDS);
  let ids: number[];
  try {
    const info = Buffer.alloc(PROG_INFO_BYTES);
    info.writeUInt32LE(MAX_MAP_IDS, 52); // nr_map_ids: room for this many
    info.writeBigUInt64LE(BigInt(koffi.address(mapIds)), 56); // map_ids
    const rc = lib.objInfo(fd, info, [PROG_INFO_BYTES]);
    if (rc !== 0) throw new BpfError(`read program ${progId}'s info`, -rc);
    if (nameOf(info, 64) !== program) return undefined;
    const n = info.readUInt32LE(52);
    if (n > MAX_MAP_IDS) throw new Error(`program ${progId} is named ${program} but uses ${n} maps`);
    ids = [...(koffi.decode(mapIds, 'uint32_t', n) as Uint32Array)];
  } finally {
    koffi.free(mapIds);
  }
  const maps = new Map<string, OpenedMap>();
  const opts = Buffer.alloc(16);
  opts.writeBigUInt64LE(16n, 0); // sz
  opts.writeUInt32LE(BPF_F_RDONLY, 8); // open_flags
  for (const id of ids) {
    const known = opened.get(id);
    if (known !== undefined) {
      maps.set(known.map.name, known);
      continue;
    }
    const mapFd = lib.mapFdByIdOpts(id, opts);
    if (mapFd < 0) throw new BpfError(`open map ${id} of program ${progId} read-only`, -mapFd);
    fds.push(mapFd);
    const info = Buffer.alloc(MAP_INFO_BYTES);
    const rc = lib.objInfo(mapFd, info, [MAP_INFO_BYTES]);
    if (rc !== 0) throw new BpfError(`read map ${id}'s info`, -rc);
    const name = nameOf(info, 24);
    if (!Object.hasOwn(LAYOUTS, name)) continue;
    const layout = LAYOUTS[name as ExplainMapName];
    const [keySize, valueSize] = [info.readUInt32LE(8), info.readUInt32LE(12)];
    if (keySize !== layout.key || valueSize !== layout.value)
      throw new Error(
        `map ${name} of program ${progId} has ${keySize}/${valueSize}-byte keys/values, this build's has ${layout.key}/${layout.value} (another version of kpng?)`,
      );
    const entry = { id, map: new BpfMap(lib, name, mapFd, keySize, valueSize), maxEntries: info.readUInt32LE(16) };
    opened.set(id, entry);
    maps.set(name, entry);
  }
  return maps;
}

const ENOENT = 2;
