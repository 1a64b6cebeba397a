/**
 * One family's rules: render (re-using what did not change), write the restore input of a full
 * or partial sync (KEP-3453: top-level chains always, per-service chains only for the Services
 * that changed), and remember what the kernel holds once the caller says the restore succeeded.
 */
import type { IPFamily, LocalService, NodeLocalState, ServiceKey } from '@kpng/core';
import { diffKeyed, runSteps, TurnBudget } from '@kpng/kit';
import type { IptablesConfig } from '../render/config.js';
import { renderContext, sameServiceRendering, type RenderContext } from '../render/context.js';
import { SERVICE_CHAIN } from '../render/names.js';
import { renderServiceText } from '../render/service.js';
import type { ServiceText } from '../render/sink.js';
import { insertLine, missingJumps, savedRules } from '../render/jumps.js';
import { filterChains, filterStaticRules, jumpRules, NAT_CHAINS, natStaticRules } from '../render/skeleton.js';
import { block, declarations, NO_LINES, type Block, writeRestore } from '../restore/writer.js';

/** A Service's rendering as restore text, joined once per rendering and re-used while it holds. */
interface Cached {
  readonly svc: LocalService;
  readonly filter: Block;
  readonly nat: Block;
  /** Its own chains: names, declarations, and their rules. */
  readonly names: readonly string[];
  readonly declare: Block;
  readonly rules: Block;
}

const EMPTY: Pick<Cached, 'filter' | 'nat' | 'rules' | 'names'> = {
  filter: NO_LINES,
  nat: NO_LINES,
  rules: NO_LINES,
  names: [],
};

function sameText(a: Pick<Cached, 'filter' | 'nat' | 'rules' | 'names'>, b: typeof a): boolean {
  return (
    a.filter.text === b.filter.text &&
    a.nat.text === b.nat.text &&
    a.rules.text === b.rules.text &&
    a.names.join() === b.names.join()
  );
}

function sum(blocks: readonly Block[]): number {
  return blocks.reduce((n, b) => n + b.lines, 0);
}

function cached(svc: LocalService, rendered: ServiceText): Cached {
  return {
    svc,
    filter: { text: rendered.filterText, lines: rendered.filterLines },
    nat: { text: rendered.natText, lines: rendered.natLines },
    names: rendered.names,
    declare: declarations(rendered.names),
    rules: { text: rendered.rulesText, lines: rendered.ruleLines },
  };
}

export interface PlanRequest {
  readonly state: NodeLocalState;
  /** Services to rewrite; undefined: a full sync. */
  readonly updated: ReadonlySet<ServiceKey> | undefined;
}

/** What the kernel holds (after a restart or failure): nat and filter dumps, to sweep leftovers and insert missing jumps. */
export interface SavedTables {
  readonly nat: string;
  readonly filter: string;
}

/**
 * A rendered sync waiting for the kernel's dumps (when the backend does not know what the kernel
 * holds): rendering runs while the `iptables-save` processes do.
 */
export interface Draft {
  finish(saved: SavedTables | undefined): FamilyPlan;
}

export interface FamilyPlan {
  readonly family: IPFamily;
  readonly partial: boolean;
  /** The restore input, in pieces (`text`: joined). */
  readonly parts: readonly string[];
  readonly text: string;
  /** Rules written per table this sync. */
  readonly written: { readonly filter: number; readonly nat: number };
  /** Rules the backend owns per table after this sync (kube-proxy's iptables_total). */
  readonly total: { readonly filter: number; readonly nat: number };
  readonly chainsWritten: number;
  readonly chainsDeleted: number;
  /** A partial sync whose changed Services render as the kernel already has them (e.g. IPv6 when only IPv4 changed): no restore. */
  readonly noop: boolean;
  commit(): void;
}

/** What rendering the Services produced, before the restore input is written. */
interface Rendered {
  /** A partial sync whose changed Services render exactly as before. */
  readonly same: boolean;
  readonly filterRules: readonly Block[];
  readonly natTop: readonly Block[];
  readonly natChains: readonly Block[];
  readonly chainRules: readonly Block[];
  readonly applied: ReadonlyMap<ServiceKey, readonly string[]>;
  readonly cache: Map<ServiceKey, Cached>;
  readonly natTotal: number;
  readonly chainsWritten: number;
}

/** Rendering yields after this much time (as core's turns; a kubelet probe's deadline is 1 s). */
const RENDER_TURN_MS = 10;

export class FamilyProgrammer {
  readonly family: IPFamily;
  readonly #config: IptablesConfig;
  #ctx: RenderContext | undefined;
  #nfacct: ReadonlySet<string> = new Set();
  #cache = new Map<ServiceKey, Cached>();
  /** Per-service chains the kernel holds (committed). */
  #applied: ReadonlyMap<ServiceKey, readonly string[]> = new Map();

  constructor(config: IptablesConfig, family: IPFamily) {
    this.#config = config;
    this.family = family;
  }

  /** The nfacct counters the node holds from now on (a change re-renders every Service). */
  useNfacct(counters: ReadonlySet<string>): void {
    this.#nfacct = counters;
  }

  /** Forget what the kernel holds (after a failed restore): the next plan is full and sweeps. */
  reset(): void {
    this.#ctx = undefined;
  }

  /** The jumps from the built-in chains the last full restore ensured (none before one). */
  jumps(): ReturnType<typeof jumpRules> {
    return this.#ctx === undefined ? [] : jumpRules(this.#ctx);
  }

  get knowsKernel(): boolean {
    return this.#ctx !== undefined;
  }

  /**
   * Renders the Services (re-using unchanged ones), giving the event loop a turn every
   * {@link RENDER_TURN_MS}: a first sync of 10k Services renders for many turns' worth
   * (docs/PERFORMANCE.md), during which health probes and the API watches would otherwise wait.
   */
  async prepare(req: PlanRequest): Promise<Draft> {
    const { state } = req;
    const ctx = renderContext(this.#config, this.family, state.node, endpointCount(state, this.family), this.#nfacct);
    const previous = this.#ctx;
    const partial = req.updated !== undefined && previous !== undefined && sameServiceRendering(previous, ctx);
    const reuse = previous !== undefined && sameServiceRendering(previous, ctx);
    const cache = new Map<ServiceKey, Cached>();
    const filterRules: Block[] = [];
    const natTop: Block[] = [];
    const natChains: Block[] = [declarations(NAT_CHAINS)];
    const chainRules: Block[] = [];
    const applied = new Map<ServiceKey, readonly string[]>();
    let natTotal = 0;
    let chainsWritten = 0;
    let same = partial;
    const budget = new TurnBudget(RENDER_TURN_MS);
    for (const svc of state.services) {
      if (budget.due()) await budget.yield();
      const old = this.#cache.get(svc.key);
      const changed = (req.updated?.has(svc.key) ?? true) || old === undefined;
      const entry =
        reuse && old !== undefined && (old.svc === svc || (partial && !changed))
          ? old.svc === svc
            ? old
            : { ...old, svc }
          : cached(svc, renderServiceText(svc, ctx));
      cache.set(svc.key, entry);
      if (entry.filter.lines > 0) filterRules.push(entry.filter);
      if (entry.nat.lines > 0) natTop.push(entry.nat);
      natTotal += entry.nat.lines + entry.rules.lines;
      applied.set(svc.key, entry.names);
      if (partial && !changed) continue;
      same &&= old !== undefined && sameText(old, entry);
      natChains.push(entry.declare);
      chainRules.push(entry.rules);
      chainsWritten += entry.names.length;
    }
    // A Service removed in this family's rendering changes its rules (and deletes its chains).
    for (const key of req.updated ?? []) {
      const old = this.#cache.get(key);
      if (!cache.has(key) && old !== undefined && !sameText(old, EMPTY)) same = false;
    }
    return {
      finish: (saved) =>
        this.#finish(req, ctx, partial, saved, {
          same,
          filterRules,
          natTop,
          natChains,
          chainRules,
          applied,
          cache,
          natTotal,
          chainsWritten,
        }),
    };
  }

  #finish(
    req: PlanRequest,
    ctx: RenderContext,
    partial: boolean,
    saved: SavedTables | undefined,
    rendered: Rendered,
  ): FamilyPlan {
    const { state } = req;
    const { filterRules, natTop, natChains, chainRules, applied, cache, natTotal, chainsWritten } = rendered;
    const commit = (): void => {
      this.#ctx = ctx;
      this.#cache = cache;
      this.#applied = applied;
    };
    const deleteChains = this.#stale(
      applied,
      partial ? req.updated : undefined,
      saved === undefined ? [] : savedServiceChains(saved.nat),
    );
    const jumps = jumpRules(ctx);
    const from = new Set(jumps.map((j) => j.from));
    const missing =
      saved === undefined
        ? []
        : missingJumps(jumps, { nat: savedRules(saved.nat, from), filter: savedRules(saved.filter, from) });
    const filterStatic = filterStaticRules(ctx);
    const natStatic = natStaticRules(ctx, state.node);
    if (rendered.same && deleteChains.length === 0 && missing.length === 0) {
      const unchanged = { filter: 0, nat: 0 };
      const total = { filter: filterStatic.length + sum(filterRules), nat: natTotal + natStatic.length };
      return {
        family: this.family,
        partial,
        parts: [],
        text: '',
        written: unchanged,
        total,
        chainsWritten: 0,
        chainsDeleted: 0,
        noop: true,
        commit,
      };
    }
    const written = writeRestore({
      filterChains: filterChains(ctx),
      filterRules: [...filterRules, block(filterStatic)],
      natChains,
      natRules: [...natTop, block(natStatic), ...chainRules],
      deleteChains,
      canary: !partial,
      insert: {
        filter: missing.filter((j) => j.table === 'filter').map(insertLine),
        nat: missing.filter((j) => j.table === 'nat').map(insertLine),
      },
    });
    return {
      family: this.family,
      partial,
      parts: written.parts,
      get text() {
        return written.parts.join('');
      },
      written: { filter: written.filterRules, nat: written.natRules },
      total: { filter: written.filterRules, nat: natTotal + natStatic.length },
      chainsWritten,
      chainsDeleted: deleteChains.length,
      noop: false,
      commit,
    };
  }

  /**
   * Chains to delete: applied (or found) per-service chains no Service wants any more, by the
   * kit's keyed diff. Chain names hash the Service's port name, so a chain can only be wanted by
   * the Service that had it: each Service's chains (of the `updated` ones, or all) are compared
   * with its own (same list when its rendering was re-used). Chains the kernel holds (`existing`,
   * after a restart or failure) are compared with every wanted chain, by name.
   */
  #stale(
    wanted: ReadonlyMap<ServiceKey, readonly string[]>,
    updated: ReadonlySet<ServiceKey> | undefined,
    existing: readonly string[],
  ): string[] {
    const stale = new Set<string>();
    const unwanted = (before: readonly string[], now: readonly string[]): void => {
      const keep = new Set(now);
      for (const name of before) if (!keep.has(name)) stale.add(name);
    };
    runSteps(
      diffKeyed(only(wanted, updated), only(this.#applied, updated), (now, before) => now === before, {
        changed: (_key, now, before) => unwanted(before, now),
        removed: (_key, before) => unwanted(before, []),
      }),
    );
    if (existing.length > 0) {
      const wantedChains = new Map<string, ServiceKey>();
      for (const [key, names] of wanted) for (const name of names) wantedChains.set(name, key);
      runSteps(
        diffKeyed(wantedChains, new Map(existing.map((name) => [name, name])), () => true, {
          removed: (name) => {
            if (SERVICE_CHAIN.test(name)) stale.add(name);
          },
        }),
      );
    }
    return [...stale];
  }
}

/** `map`'s entries for `keys` (all of them without `keys`). */
function only<V>(
  map: ReadonlyMap<ServiceKey, V>,
  keys: ReadonlySet<ServiceKey> | undefined,
): ReadonlyMap<ServiceKey, V> {
  if (keys === undefined) return map;
  const picked = new Map<ServiceKey, V>();
  for (const key of keys) {
    const value = map.get(key);
    if (value !== undefined) picked.set(key, value);
  }
  return picked;
}

function endpointCount(state: NodeLocalState, family: IPFamily): number {
  let count = 0;
  for (const svc of state.services)
    for (const port of svc.ports) count += port.endpoints[family]?.allReachable.length ?? 0;
  return count;
}

/** Per-service chain names in an `iptables-save -t nat` dump. */
export function savedServiceChains(dump: string): string[] {
  const chains: string[] = [];
  for (const line of dump.split('\n')) {
    if (!line.startsWith(':')) continue;
    const name = line.slice(1).split(' ')[0] ?? '';
    if (SERVICE_CHAIN.test(name)) chains.push(name);
  }
  return chains;
}
