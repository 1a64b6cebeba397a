import {
  findService,
  log as defaultLog,
  type Backend,
  type DriftKinds,
  type IPFamily,
  type LocalService,
  type Logger,
  type ServiceKey,
  type SyncOutcome,
  type SyncRequest,
} from '@kpng/core';
import { TurnBudget } from '@kpng/kit';
import { Registry } from 'prom-client';
import { resolveCgroup } from '../cgroup/cgroup.js';
import { SockLb, type MapLimits } from '../libbpf/sock-lb.js';
import { endpointKey, lbValue, MAP_NAMES, type MapName } from '../maps/layout.js';
import { renderService, type RenderProblem } from '../render/render.js';
import type { LbKernel, ScanCursor } from './kernel.js';
import { removedUdpPairs } from './stale.js';
import { createEbpfMetrics, type EbpfMetrics, NO_METRICS } from './metrics.js';
import {
  afterPlan,
  applyPlan,
  applyToRecord,
  diffInto,
  emptyEntries,
  emptyPlan,
  planSize,
  type Entries,
  type Plan,
} from './plan.js';

const FAMILIES: readonly IPFamily[] = ['IPv4', 'IPv6'];

/**
 * How far the maps grow by default: 1,048,576 Service keys per family, 4,194,304 endpoints (20x
 * and 7.5x the s50k scenario's). The hash maps allocate per element, so a bound costs nothing until
 * the state fills it, beyond the bucket array of the size reached (16 bytes an entry).
 */
export const DEFAULT_MAP_BOUNDS: Readonly<Record<MapName, number>> = {
  services4: 1 << 20,
  services6: 1 << 20,
  endpoints: 1 << 22,
};

/** A sync refused: the state needs more entries in a map than its bound. */
export class MapFullError extends Error {
  constructor(
    readonly map: MapName,
    readonly needed: number,
    readonly bound: number,
  ) {
    const flag = map === 'endpoints' ? '--max-endpoints' : '--max-services';
    super(
      `BPF map ${map} would need ${needed} entries, more than its bound of ${bound} (${flag}): sync refused, the maps keep the last synced state`,
    );
    this.name = 'MapFullError';
  }
}

/** The size a map grows to for `needed` entries: a quarter more, up to a power of two (the kernel's bucket count). */
export function grownSize(needed: number, bound: number): number {
  return Math.min(bound, 2 ** Math.ceil(Math.log2(Math.ceil(needed * 1.25))));
}

export interface EbpfBackendOptions {
  /** The cgroup v2 directory the programs attach to (`--cgroup-root`); checked by `resolveCgroup`. */
  readonly cgroup: string;
  readonly families?: readonly IPFamily[];
  /** The maps' starting sizes (`SockLb`'s defaults: 4096 Service keys per family, 16,384 endpoints). */
  readonly limits?: Partial<MapLimits>;
  /**
   * The most entries each map may grow to (`--max-services`, `--max-endpoints`; default
   * `DEFAULT_MAP_BOUNDS`). A sync whose state needs more is refused, counted
   * (`kpng_ebpf_map_full_total`), and the maps keep the last synced state.
   */
  readonly maxEntries?: Partial<Record<MapName, number>>;
  /** The kernel seam; default: bpf/sock_lb.o loaded and attached to `cgroup` in `setup()`. */
  readonly kernel?: LbKernel;
  readonly metrics?: EbpfMetrics | Registry;
  readonly logger?: Logger;
  /**
   * How long one drift check reads the maps before returning (default 20 ms): a check is a slice
   * of a pass over the maps that goes on at the next check, so it never holds a sync for longer.
   */
  readonly checkSliceMs?: number;
  /**
   * The packet path: a backend programming what socket hooks cannot see (traffic entering the
   * node: NodePorts, external and LB IPs from outside, loadBalancerSourceRanges, masquerade; and
   * processes outside the cgroup), driven with the same requests after the maps are written.
   * `kpng-ebpf --packet-path nft` makes it the nft backend. Default: none.
   */
  readonly packetPath?: Backend;
  /**
   * The longest the sync holds the event loop between turns (default 10 ms, as the nft backend): a
   * full sync at s10k renders, diffs and writes ~130,000 elements, in turns of at most this.
   */
  readonly turnBudgetMs?: number;
}

/** One Service's part of the maps at the last successful sync. */
interface ServiceRender {
  readonly lbKeys: readonly string[];
  /** `map:hexkey` of the frontends this Service owns. */
  readonly frontends: readonly string[];
  /**
   * Its elements, flat: map name, key, value (hex), map name, ... A later key repeating an earlier
   * one replaces it. One array, not three Maps a Service: ~10,000 of them live at s10k.
   */
  readonly elements: readonly string[];
}

/** A Service's elements as the maps they go to (a partial sync diffs them). */
function entriesOf(render: ServiceRender | undefined): Entries {
  const entries = emptyEntries();
  if (render !== undefined) addElements(entries, render.elements);
  return entries;
}

function addElements(entries: Entries, elements: readonly string[]): void {
  for (let i = 0; i < elements.length; i += 3)
    entries[elements[i] as MapName].set(elements[i + 1] as string, elements[i + 2] as string);
}

/**
 * The eBPF backend: renders each Service's map entries from the node-local state, diffs them with
 * what the maps hold, and writes only the difference (`plan.ts`: an order the programs never see
 * half-way). A partial sync re-renders only the Services core says changed; a full sync renders
 * everything and diffs against the maps as read from the kernel, so it also repairs drift. A
 * failed write throws, the backend forgets what it knew, and core's retry (a full sync) re-reads
 * the maps and converges.
 */
export class EbpfBackend implements Backend {
  readonly name = 'ebpf';
  readonly families: readonly IPFamily[];
  readonly #options: EbpfBackendOptions;
  readonly #log: Logger;
  readonly #metrics: EbpfMetrics;
  readonly #bounds: Readonly<Record<MapName, number>>;
  #kernel: LbKernel | undefined;
  /** What the maps hold after the last successful sync; undefined: unknown (read them). */
  #applied: Entries | undefined;
  #rendered: Map<ServiceKey, ServiceRender> | undefined;
  #families: readonly IPFamily[] = [];
  /** Which Service owns each frontend (`map:hexkey`): an address two Services claim goes to the first. */
  #owners = new Map<string, ServiceKey>();
  /** lb ids, stable per (service port, family, scope); freed ids are reused only after a successful sync. */
  #ids = new Map<string, number>();
  #free: number[] = [];
  #nextId = 1;
  #drift: string[] = [];
  /** Bumped by every sync and by forgetting the maps: a drift pass's counts hold within one generation. */
  #generation = 0;
  /** The drift check's pass over the maps, continued by each check. */
  #pass: CheckPass | undefined;
  #queue: Promise<unknown> = Promise.resolve();

  constructor(options: EbpfBackendOptions) {
    this.#options = options;
    this.families = options.families ?? FAMILIES;
    this.#log = options.logger ?? defaultLog.with({ backend: 'ebpf' });
    const metrics = options.metrics;
    this.#metrics =
      metrics === undefined ? NO_METRICS : metrics instanceof Registry ? createEbpfMetrics(metrics) : metrics;
    this.#kernel = options.kernel;
    this.#bounds = { ...DEFAULT_MAP_BOUNDS, ...options.maxEntries };
  }

  /** Loads the programs (maps created, verifier passed) and attaches them to the cgroup. */
  async setup(): Promise<void> {
    await this.#options.packetPath?.setup?.();
    if (this.#kernel === undefined) this.#kernel = this.#attach();
    for (const map of MAP_NAMES) this.#metrics.capacity(map, this.#kernel.capacity[map]);
  }

  #attach(): LbKernel {
    const cgroup = resolveCgroup(this.#options.cgroup);
    const lb = SockLb.load(this.#options.limits === undefined ? {} : { limits: this.#options.limits });
    try {
      lb.attach(cgroup);
    } catch (e) {
      lb.close();
      throw e;
    }
    const unavailable = lb.staleUdpUnavailable;
    this.#log.info('socket load balancer attached', {
      cgroup,
      staleUdp:
        lb.destroysStaleUdp === true
          ? 'destroyed (bpf_sock_destroy)'
          : lb.destroysStaleUdp === false
            ? 'counted, not destroyed: this kernel lacks bpf_sock_destroy (Linux 6.5)'
            : `not handled: ${unavailable?.message ?? 'no UDP socket iterator'}`,
    });
    return lb;
  }

  sync(req: SyncRequest): Promise<SyncOutcome> {
    return this.#serial(() => this.#sync(req));
  }

  /**
   * Did another program change the maps? Reads the next slice of a pass over them (at most
   * `checkSliceMs`, then the pass goes on at the next check) and compares every element read with
   * the last sync's picture: an element not there or different is drift at once; an element
   * missing shows as a map whose element count differs from the picture's, judged when a map was
   * read from start to end with no sync in between (else on the next pass).
   */
  check(): Promise<DriftKinds> {
    return this.#serial(async () => {
      const kernel = this.#kernel;
      const applied = this.#applied;
      const packet = (await this.#options.packetPath?.check?.()) ?? [];
      if (kernel === undefined || applied === undefined) {
        this.#pass = undefined;
        return packet;
      }
      const kinds = await this.#checkSlice(kernel, applied);
      if (kinds.length > 0) this.#pass = undefined;
      this.#drift = [...new Set([...this.#drift, ...kinds])];
      return [...kinds, ...packet];
    });
  }

  async #checkSlice(kernel: LbKernel, applied: Entries): Promise<string[]> {
    const deadline = performance.now() + (this.#options.checkSliceMs ?? 20);
    const found = new Set<string>();
    for (;;) {
      const pass = (this.#pass ??= { map: 0, cursor: undefined, seen: 0, generation: this.#generation });
      const name = MAP_NAMES[pass.map] as MapName;
      const slice = await kernel.maps[name].scan(pass.cursor, CHECK_BATCH);
      for (const [key, value] of slice.entries) if (applied[name].get(key) !== value) found.add(driftKind(name));
      pass.seen += slice.entries.length;
      if (slice.next !== undefined) pass.cursor = slice.next;
      else {
        if (pass.generation === this.#generation && pass.seen !== applied[name].size) found.add(driftKind(name));
        Object.assign(pass, { map: pass.map + 1, cursor: undefined, seen: 0, generation: this.#generation });
        if (pass.map === MAP_NAMES.length) {
          this.#pass = undefined; // a whole pass: the next check starts another
          break;
        }
      }
      if (performance.now() >= deadline) break;
    }
    return [...found];
  }

  /** Detaches the programs and frees the maps: the links and maps belong to this process, nothing is pinned. */
  cleanup(): Promise<void> {
    return this.#serial(async () => {
      this.#forget();
      this.#kernel?.close();
      this.#kernel = undefined;
      await this.#options.packetPath?.cleanup();
    });
  }

  /** Detaches the programs and frees the maps; the packet path's rules stay (its own close()). */
  close(): Promise<void> {
    return this.#serial(async () => {
      this.#forget();
      this.#kernel?.close();
      this.#kernel = undefined;
      await this.#options.packetPath?.close?.();
    });
  }

  /** What the maps hold after the last successful sync (tests, debugging). */
  applied(): Readonly<Entries> | undefined {
    return this.#applied;
  }

  async #sync(req: SyncRequest): Promise<SyncOutcome> {
    const kernel = this.#kernel;
    if (kernel === undefined) throw new Error('EbpfBackend.setup() was not called');
    const started = performance.now();
    const budget = new TurnBudget(this.#options.turnBudgetMs ?? 10);
    const families =
      req.families === undefined ? this.families : this.families.filter((f) => req.families!.includes(f));
    const updated = req.changes.updatedServices;
    const full =
      req.full ||
      updated === undefined ||
      this.#rendered === undefined ||
      this.#applied === undefined ||
      families.join() !== this.#families.join();
    const problems: RenderProblem[] = [];
    let plan = emptyPlan();
    const released: string[] = [];
    let applied: Entries;
    /** What the maps hold before this sync's writes. */
    let before: Entries;
    let rendered: Map<ServiceKey, ServiceRender>;
    /** A partial sync's changed Services as they were and as they are (their stale UDP pairs). */
    const oldParts = emptyEntries();
    const newParts = emptyEntries();
    if (full) {
      this.#owners = new Map();
      rendered = new Map();
      const desired = emptyEntries();
      const live = new Set<string>();
      for (const service of req.state.services) {
        const render = this.#render(service, families, problems);
        rendered.set(service.key, render);
        addElements(desired, render.elements);
        for (const lb of render.lbKeys) live.add(lb);
        await budget.maybeYield();
      }
      before = await dumpAll(kernel, budget);
      // Empty maps (the first sync): the writes are the desired state itself, not a copy of it.
      if (MAP_NAMES.every((map) => before[map].size === 0)) plan = emptyPlan(desired);
      else await diffInto(plan, before, desired, budget);
      for (const key of this.#ids.keys()) if (!live.has(key)) released.push(key);
      applied = desired;
    } else {
      rendered = this.#rendered!;
      applied = this.#applied!;
      before = applied;
      for (const key of updated) {
        const old = rendered.get(key);
        if (old !== undefined) addElements(oldParts, old.elements);
        for (const frontend of old?.frontends ?? [])
          if (this.#owners.get(frontend) === key) this.#owners.delete(frontend);
        const service = findService(req.state.services, key);
        const next = service === undefined ? undefined : this.#render(service, families, problems);
        if (next !== undefined) addElements(newParts, next.elements);
        await diffInto(plan, entriesOf(old), entriesOf(next), budget);
        if (next === undefined) rendered.delete(key);
        else rendered.set(key, next);
        const keep = new Set(next?.lbKeys);
        released.push(...(old?.lbKeys ?? []).filter((lb) => !keep.has(lb)));
        await budget.maybeYield();
      }
    }
    for (const problem of problems) {
      this.#metrics.renderProblem();
      this.#log.warn('service part left out of the BPF maps', { ...problem });
    }
    try {
      const sizes = await this.#sizesFor(kernel, before, plan, budget);
      if (sizes === undefined) await applyPlan(kernel, plan, this.#metrics, budget);
      else await this.#resize(kernel, sizes, full ? applied : await afterPlan(applied, plan, budget), budget);
    } catch (e) {
      this.#forget();
      throw e;
    }
    if (!full) applyToRecord(applied, plan);
    this.#generation++;
    this.#applied = applied;
    this.#rendered = rendered;
    this.#families = families;
    for (const key of released) this.#release(key);
    for (const map of MAP_NAMES) this.#metrics.entries(map, applied[map].size);
    this.#log.info('synced ebpf maps', {
      full,
      revision: req.revision,
      services: req.state.services.length,
      written: planSize(plan),
      ms: Math.round(performance.now() - started),
      turns: budget.yields,
    });
    this.#endStaleUdp(kernel, full ? removedUdpPairs(before, applied) : removedUdpPairs(oldParts, newParts));
    const repaired = full ? this.#drift : [];
    if (full) this.#drift = [];
    // The maps first: east-west follows a change without waiting for the packet path.
    const packet = await this.#options.packetPath?.sync(req);
    const all = [...repaired, ...((packet && packet.repaired) ?? [])];
    return all.length > 0 ? { repaired: all } : {};
  }

  /**
   * The maps' new sizes when one cannot hold this sync's writes at their peak (updates are written
   * before deletes: the entries before plus the new keys), else undefined; a map whose bound is too
   * small refuses the sync (counted).
   */
  async #sizesFor(
    kernel: LbKernel,
    before: Entries,
    plan: Plan,
    budget: TurnBudget,
  ): Promise<Record<MapName, number> | undefined> {
    const capacity = kernel.capacity;
    const sizes = { ...capacity };
    let grow = false;
    for (const map of MAP_NAMES) {
      let peak = before[map].size;
      for (const key of plan.upserts[map].keys()) {
        if (!before[map].has(key)) peak++;
        if (budget.due()) await budget.yield();
      }
      if (peak <= capacity[map]) continue;
      if (peak > this.#bounds[map]) {
        this.#metrics.full(map);
        throw new MapFullError(map, peak, this.#bounds[map]);
      }
      sizes[map] = grownSize(peak, this.#bounds[map]);
      grow = true;
    }
    return grow ? sizes : undefined;
  }

  /** New maps of `sizes`, filled with `state` (the sync's result), swapped in for the programs. */
  async #resize(kernel: LbKernel, sizes: Record<MapName, number>, state: Entries, budget: TurnBudget): Promise<void> {
    const from = kernel.capacity;
    // The new maps are empty: the whole state is the writes (the record itself, not a copy).
    const fill = emptyPlan(state);
    await kernel.resize(sizes, (maps) => applyPlan({ maps }, fill, this.#metrics, budget));
    this.#pass = undefined; // a drift pass's cursor belongs to the old maps
    for (const map of MAP_NAMES) {
      if (sizes[map] !== from[map]) this.#metrics.resized(map);
      this.#metrics.capacity(map, sizes[map]);
    }
    this.#log.info('BPF maps resized for the state', { from: { ...from }, to: sizes });
  }

  /**
   * Connected UDP sockets balanced along a removed (Service, endpoint) pair: destroyed where the
   * kernel can (bpf_sock_destroy, 6.5), else counted as left (they keep sending to the removed
   * endpoint until the application reconnects). A failed sweep is counted and logged; the maps are
   * already right, so it does not fail the sync.
   */
  #endStaleUdp(kernel: LbKernel, pairs: readonly string[]): void {
    if (pairs.length === 0 || kernel.staleUdp === undefined) return;
    try {
      const sweep = kernel.staleUdp(pairs.map((pair) => Buffer.from(pair, 'hex')));
      if (sweep === undefined) return;
      const left = sweep.destroys ? 0 : sweep.found;
      this.#metrics.staleUdp('destroyed', sweep.destroyed);
      this.#metrics.staleUdp('refused', sweep.failed);
      this.#metrics.staleUdp('left', left);
      if (sweep.found > 0 || sweep.skippedNamespaces > 0)
        this.#log[left + sweep.failed + sweep.skippedNamespaces > 0 ? 'warn' : 'info']('stale UDP sockets', {
          pairs: pairs.length,
          ...sweep,
          ...(left > 0 ? { left: 'this kernel lacks bpf_sock_destroy (Linux 6.5): they keep their endpoint' } : {}),
        });
    } catch (e) {
      this.#metrics.staleUdpSweepFailed();
      this.#log.warn('stale UDP sweep failed', { pairs: pairs.length, error: (e as Error).message });
    }
  }

  #render(service: LocalService, families: readonly IPFamily[], problems: RenderProblem[]): ServiceRender {
    const elements: string[] = [];
    const frontends: string[] = [];
    const lbs = renderService(service, families, problems);
    for (const lb of lbs) {
      const id = this.#id(lb.key);
      const value = lbValue({
        id,
        count: lb.endpoints.length,
        affinitySeconds: lb.affinitySeconds,
        flags: lb.flags,
      }).toString('hex');
      for (const frontend of lb.frontends) {
        const owned = `${lb.map}:${frontend}`;
        const owner = this.#owners.get(owned);
        if (owner !== undefined && owner !== service.key) {
          problems.push({ service: service.key, reason: `${lb.map} key ${frontend} already belongs to ${owner}` });
          continue;
        }
        this.#owners.set(owned, service.key);
        frontends.push(owned);
        elements.push(lb.map, frontend, value);
      }
      lb.endpoints.forEach((ep, index) => elements.push('endpoints', endpointKey(id, index).toString('hex'), ep));
    }
    return { lbKeys: lbs.map((lb) => lb.key), frontends, elements };
  }

  #id(lbKey: string): number {
    let id = this.#ids.get(lbKey);
    if (id === undefined) {
      id = this.#free.pop() ?? this.#nextId++;
      this.#ids.set(lbKey, id);
    }
    return id;
  }

  #release(lbKey: string): void {
    const id = this.#ids.get(lbKey);
    if (id === undefined) return;
    this.#ids.delete(lbKey);
    this.#free.push(id);
  }

  /** After a failed write: what the maps hold is unknown until a full sync reads them. */
  #forget(): void {
    this.#generation++;
    this.#applied = undefined;
    this.#rendered = undefined;
    this.#owners = new Map();
  }

  #serial<T>(run: () => Promise<T>): Promise<T> {
    const next = this.#queue.then(run, run);
    this.#queue = next.catch(() => undefined);
    return next;
  }
}

async function dumpAll(kernel: LbKernel, budget: TurnBudget): Promise<Entries> {
  return {
    services4: await kernel.maps.services4.dump(budget),
    services6: await kernel.maps.services6.dump(budget),
    endpoints: await kernel.maps.endpoints.dump(budget),
  };
}

/** A drift pass: the map it is reading (index in MAP_NAMES), where, elements seen, the generation it started that map in. */
interface CheckPass {
  map: number;
  cursor: ScanCursor | undefined;
  seen: number;
  generation: number;
}

/** Elements a check reads between looks at the clock (one kernel batch). */
const CHECK_BATCH = 4096;

const driftKind = (map: MapName): string => (map === 'endpoints' ? 'endpoint' : 'service');
