import koffi from 'koffi';

/**
 * The few libbpf calls the loader needs, through koffi (prebuilt FFI binaries inside the npm
 * package: no compiler, no install script; the IPVS backend reaches libc the same way). libbpf
 * (`libbpf.so.1`, Debian's libbpf1) does what a raw bpf() loader would have to redo: ELF parsing,
 * map creation and relocation, BTF, program load with the verifier's log. Loaded on first use, so
 * importing this package (rendering, tests of the diff) never needs the library.
 */
export interface Libbpf {
  readonly openFile: (path: string, opts: null) => unknown;
  readonly load: (obj: unknown) => number;
  readonly close: (obj: unknown) => void;
  readonly findMap: (obj: unknown, name: string) => unknown;
  readonly setMaxEntries: (map: unknown, entries: number) => number;
  readonly reuseFd: (map: unknown, fd: number) => number;
  readonly mapFd: (map: unknown) => number;
  readonly findProgram: (obj: unknown, name: string) => unknown;
  readonly attachCgroup: (prog: unknown, cgroupFd: number) => unknown;
  readonly destroyLink: (link: unknown) => number;
  readonly updateLink: (link: unknown, prog: unknown) => number;
  // The stale UDP walk (`stale-udp.ts`): an iterator link, an iterator made from it, setns(2) around that.
  readonly attachIter: (prog: unknown, opts: null) => unknown;
  readonly linkFd: (link: unknown) => number;
  readonly iterCreate: (linkFd: number) => number;
  readonly setns: (fd: number, nstype: number) => number;
  readonly update: (fd: number, key: Buffer, value: Buffer, flags: number) => number;
  readonly lookup: (fd: number, key: Buffer, value: Buffer) => number;
  readonly remove: (fd: number, key: Buffer) => number;
  readonly nextKey: (fd: number, key: Buffer | null, next: Buffer) => number;
  readonly updateBatch: (fd: number, keys: Buffer, values: Buffer, count: [number], opts: null) => number;
  readonly deleteBatch: (fd: number, keys: Buffer, count: [number], opts: null) => number;
  readonly lookupBatch: (
    fd: number,
    inBatch: Buffer | null,
    outBatch: Buffer,
    keys: Buffer,
    values: Buffer,
    count: [number],
    opts: null,
  ) => number;
  // Reading another process's objects (`explain`): what is attached to a cgroup, by id.
  readonly progQuery: (
    cgroupFd: number,
    attachType: number,
    queryFlags: number,
    attachFlags: [number],
    progIds: Buffer,
    count: [number],
  ) => number;
  readonly progFdById: (id: number) => number;
  readonly mapFdByIdOpts: (id: number, opts: Buffer) => number;
  readonly objInfo: (fd: number, info: Buffer, length: [number]) => number;
  readonly errno: () => number;
}

let loaded: Libbpf | undefined;

/** libbpf, loaded once; throws a clear error when the library is missing. */
export function libbpf(): Libbpf {
  if (loaded !== undefined) return loaded;
  let lib: ReturnType<typeof koffi.load>;
  try {
    lib = koffi.load('libbpf.so.1');
  } catch (e) {
    throw new Error(`libbpf.so.1 not found (install libbpf1): ${(e as Error).message}`);
  }
  koffi.opaque('bpf_object');
  koffi.opaque('bpf_map');
  koffi.opaque('bpf_program');
  koffi.opaque('bpf_link');
  loaded = {
    openFile: lib.func('bpf_object *bpf_object__open_file(const char *path, void *opts)'),
    load: lib.func('int bpf_object__load(bpf_object *obj)'),
    close: lib.func('void bpf_object__close(bpf_object *obj)'),
    findMap: lib.func('bpf_map *bpf_object__find_map_by_name(bpf_object *obj, const char *name)'),
    setMaxEntries: lib.func('int bpf_map__set_max_entries(bpf_map *map, uint32_t entries)'),
    reuseFd: lib.func('int bpf_map__reuse_fd(bpf_map *map, int fd)'),
    mapFd: lib.func('int bpf_map__fd(bpf_map *map)'),
    findProgram: lib.func('bpf_program *bpf_object__find_program_by_name(bpf_object *obj, const char *name)'),
    attachCgroup: lib.func('bpf_link *bpf_program__attach_cgroup(bpf_program *prog, int cgroup_fd)'),
    destroyLink: lib.func('int bpf_link__destroy(bpf_link *link)'),
    updateLink: lib.func('int bpf_link__update_program(bpf_link *link, bpf_program *prog)'),
    attachIter: lib.func('bpf_link *bpf_program__attach_iter(bpf_program *prog, void *opts)'),
    linkFd: lib.func('int bpf_link__fd(bpf_link *link)'),
    iterCreate: lib.func('int bpf_iter_create(int link_fd)'),
    setns: koffi.load('libc.so.6').func('int setns(int fd, int nstype)'),
    update: lib.func('int bpf_map_update_elem(int fd, const void *key, const void *value, uint64_t flags)'),
    lookup: lib.func('int bpf_map_lookup_elem(int fd, const void *key, _Out_ void *value)'),
    remove: lib.func('int bpf_map_delete_elem(int fd, const void *key)'),
    nextKey: lib.func('int bpf_map_get_next_key(int fd, const void *key, _Out_ void *next)'),
    updateBatch: lib.func(
      'int bpf_map_update_batch(int fd, const void *keys, const void *values, _Inout_ uint32_t *count, void *opts)',
    ),
    deleteBatch: lib.func('int bpf_map_delete_batch(int fd, const void *keys, _Inout_ uint32_t *count, void *opts)'),
    lookupBatch: lib.func(
      'int bpf_map_lookup_batch(int fd, const void *in_batch, _Out_ void *out_batch, _Out_ void *keys, _Out_ void *values, _Inout_ uint32_t *count, void *opts)',
    ),
    progQuery: lib.func(
      'int bpf_prog_query(int target_fd, int type, uint32_t query_flags, _Out_ uint32_t *attach_flags, _Out_ void *prog_ids, _Inout_ uint32_t *prog_cnt)',
    ),
    progFdById: lib.func('int bpf_prog_get_fd_by_id(uint32_t id)'),
    mapFdByIdOpts: lib.func('int bpf_map_get_fd_by_id_opts(uint32_t id, const void *opts)'),
    objInfo: lib.func('int bpf_obj_get_info_by_fd(int bpf_fd, void *info, _Inout_ uint32_t *info_len)'),
    errno: () => koffi.errno(),
  } as Libbpf;
  return loaded;
}
