/**
 * One family's rules: render (re-using what did not change), write the restore input of a full
 * or partial sync (KEP-3453: top-level chains always, per-service chains only for the Services
 * that changed), and remember what the kernel holds once the caller says the restore succeeded.
 */
import type { IPFamily, LocalService, NodeLocalState, ServiceKey } from '@kpng/core';
import type { IptablesConfig } from '../render/config.js';
import { renderContext, sameServiceRendering, type RenderContext } from '../render/context.js';
import { SERVICE_CHAIN } from '../render/names.js';
import { renderService } from '../render/service.js';
import { insertLine, missingJumps, savedRules } from '../render/jumps.js';
import { filterChains, filterStaticRules, jumpRules, NAT_CHAINS, natStaticRules } from '../render/skeleton.js';
import type { RenderedService } from '../render/types.js';
import { writeRestore } from '../restore/writer.js';

interface Cached {
  readonly svc: LocalService;
  readonly rendered: RenderedService;
}

export interface PlanRequest {
  readonly state: NodeLocalState;
  /** Services to rewrite; undefined: a full sync. */
  readonly updated: ReadonlySet<ServiceKey> | undefined;
  /** What the kernel holds (after a restart or failure): nat and filter dumps, to sweep leftovers and insert missing jumps. */
  readonly saved?: { readonly nat: string; readonly filter: string };
}

export interface FamilyPlan {
  readonly family: IPFamily;
  readonly partial: boolean;
  readonly text: string;
  /** Rules written per table this sync. */
  readonly written: { readonly filter: number; readonly nat: number };
  /** Rules the backend owns per table after this sync (kube-proxy's iptables_total). */
  readonly total: { readonly filter: number; readonly nat: number };
  readonly chainsWritten: number;
  readonly chainsDeleted: number;
  commit(): void;
}

export class FamilyProgrammer {
  readonly family: IPFamily;
  readonly #config: IptablesConfig;
  #ctx: RenderContext | undefined;
  #cache = new Map<ServiceKey, Cached>();
  /** Per-service chains the kernel holds (committed). */
  #applied = new Map<ServiceKey, readonly string[]>();

  constructor(config: IptablesConfig, family: IPFamily) {
    this.#config = config;
    this.family = family;
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

  plan(req: PlanRequest): FamilyPlan {
    const { state } = req;
    const ctx = renderContext(this.#config, this.family, state.node, endpointCount(state, this.family));
    const previous = this.#ctx;
    const partial = req.updated !== undefined && previous !== undefined && sameServiceRendering(previous, ctx);
    const reuse = previous !== undefined && sameServiceRendering(previous, ctx);
    const cache = new Map<ServiceKey, Cached>();
    const filterRules: (readonly string[])[] = [];
    const natTop: (readonly string[])[] = [];
    const natChains: string[] = [...NAT_CHAINS];
    const chainRules: (readonly string[])[] = [];
    const applied = new Map<ServiceKey, readonly string[]>();
    let natTotal = 0;
    let chainsWritten = 0;
    for (const svc of state.services) {
      const old = this.#cache.get(svc.key);
      const changed = (req.updated?.has(svc.key) ?? true) || old === undefined;
      const rendered =
        reuse && old !== undefined && (old.svc === svc || (partial && !changed))
          ? old.rendered
          : renderService(svc, ctx);
      cache.set(svc.key, { svc, rendered });
      if (rendered.filter.length > 0) filterRules.push(rendered.filter);
      if (rendered.nat.length > 0) natTop.push(rendered.nat);
      natTotal += rendered.nat.length;
      const names = [...rendered.chains.keys()];
      applied.set(svc.key, names);
      for (const rules of rendered.chains.values()) natTotal += rules.length;
      if (partial && !changed) continue;
      for (const [name, rules] of rendered.chains) {
        natChains.push(name);
        chainRules.push(rules);
        chainsWritten++;
      }
    }
    const deleteChains = this.#stale(
      applied,
      partial ? req.updated : undefined,
      req.saved === undefined ? [] : savedServiceChains(req.saved.nat),
    );
    const missing =
      req.saved === undefined
        ? []
        : missingJumps(jumpRules(ctx), { nat: savedRules(req.saved.nat), filter: savedRules(req.saved.filter) });
    const filterStatic = filterStaticRules(ctx);
    const natStatic = natStaticRules(ctx, state.node);
    const written = writeRestore({
      filterChains: filterChains(ctx),
      filterRules: [...filterRules, filterStatic],
      natChains,
      natRules: [...natTop, natStatic, ...chainRules],
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
      text: written.text,
      written: { filter: written.filterRules, nat: written.natRules },
      total: { filter: written.filterRules, nat: natTotal + natStatic.length },
      chainsWritten,
      chainsDeleted: deleteChains.length,
      commit: () => {
        this.#ctx = ctx;
        this.#cache = cache;
        this.#applied = applied;
      },
    };
  }

  /** Chains to delete: applied (or found) per-service chains no Service wants any more. */
  #stale(
    wanted: ReadonlyMap<ServiceKey, readonly string[]>,
    updated: ReadonlySet<ServiceKey> | undefined,
    existing: readonly string[],
  ): string[] {
    const keys = updated ?? new Set([...this.#applied.keys()]);
    const keep = new Set<string>();
    for (const key of updated ?? wanted.keys()) for (const name of wanted.get(key) ?? []) keep.add(name);
    if (updated === undefined) for (const names of wanted.values()) for (const name of names) keep.add(name);
    const stale = new Set<string>();
    for (const key of keys) for (const name of this.#applied.get(key) ?? []) if (!keep.has(name)) stale.add(name);
    for (const name of existing) if (SERVICE_CHAIN.test(name) && !keep.has(name)) stale.add(name);
    return [...stale];
  }
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
