/**
 * What the maps hold (hex key -> value per map), the difference between two such pictures, and
 * writing that difference in an order the programs never see half-way:
 *
 *   1. endpoints written   (an lb's new or changed endpoints exist before its count grows)
 *   2. services written    (new lbs, new counts, flags, affinity)
 *   3. services deleted    (gone addresses stop resolving)
 *   4. endpoints deleted   (the tail of a shrunk lb, and gone lbs', after their counts dropped)
 *
 * A program reads an lb's count, then one endpoint index below it: at every step that index exists.
 */
import { diffKeyed, runSteps, runStepsYielding, type TurnBudget } from '@kpng/kit';
import { MAP_NAMES, type MapName } from '../maps/layout.js';
import type { LbKernel } from './kernel.js';
import type { EbpfMetrics } from './metrics.js';

/** Per map, key -> value, both as hex: one string each, not a Buffer (~300 bytes each, ~130,000 at s10k). */
export type Entries = Record<MapName, Map<string, string>>;

export const emptyEntries = (): Entries => ({ services4: new Map(), services6: new Map(), endpoints: new Map() });

export interface Plan {
  readonly upserts: Entries;
  readonly deletes: Record<MapName, Set<string>>;
}

export const emptyPlan = (upserts: Entries = emptyEntries()): Plan => ({
  upserts,
  deletes: { services4: new Set(), services6: new Set(), endpoints: new Set() },
});

export function planSize(plan: Plan): number {
  return MAP_NAMES.reduce((n, m) => n + plan.upserts[m].size + plan.deletes[m].size, 0);
}

/**
 * Adds the writes that turn `from` into `to` (for the keys they hold) to `plan`: the kit's keyed
 * diff per map (added or changed: an upsert; applied keys nothing wants: a delete). With a
 * `budget`, the event loop gets a turn whenever it is spent (a full sync diffs ~100,000 elements
 * at s10k).
 */
export async function diffInto(plan: Plan, from: Entries, to: Entries, budget?: TurnBudget): Promise<void> {
  for (const map of MAP_NAMES) {
    const upserts = plan.upserts[map];
    const deletes = plan.deletes[map];
    const write = (key: string, value: string): void => {
      upserts.set(key, value);
      // Another Service's part of this plan may have deleted the key (an address moving between Services).
      deletes.delete(key);
    };
    const steps = diffKeyed(to[map], from[map], (want, have) => want === have, {
      added: write,
      changed: write,
      unchanged: (key) => deletes.delete(key),
      removed: (key) => {
        // Unless another Service's part of this plan writes it.
        if (!upserts.has(key)) deletes.add(key);
      },
    });
    if (budget === undefined) runSteps(steps);
    else await runStepsYielding(steps, budget);
  }
}

/** Most elements per write call (one batch's keys and values are made into bytes at a time). */
const BATCH = 4096;

/**
 * Writes `plan` in the order above; a refused write throws (counted) and the rest is not written.
 * A batch ends early when `budget` is spent, and the event loop gets its turn after that write.
 */
export async function applyPlan(
  kernel: Pick<LbKernel, 'maps'>,
  plan: Plan,
  metrics: EbpfMetrics,
  budget: TurnBudget,
): Promise<void> {
  const services = ['services4', 'services6'] as const;
  await write(kernel, 'endpoints', plan, 'update', metrics, budget);
  for (const map of services) await write(kernel, map, plan, 'update', metrics, budget);
  for (const map of services) await write(kernel, map, plan, 'delete', metrics, budget);
  await write(kernel, 'endpoints', plan, 'delete', metrics, budget);
}

async function write(
  kernel: Pick<LbKernel, 'maps'>,
  map: MapName,
  plan: Plan,
  op: 'update' | 'delete',
  metrics: EbpfMetrics,
  budget: TurnBudget,
) {
  const io = kernel.maps[map];
  const items = op === 'update' ? plan.upserts[map].entries() : plan.deletes[map].values();
  // One batch made at a time (its keys as bytes), written, then a turn if the budget is spent:
  // never the whole map's bytes at once.
  let written = 0;
  for (;;) {
    const updates: (readonly [Buffer, Buffer])[] = [];
    const deletes: Buffer[] = [];
    let due = false;
    let more = false;
    for (let next = items.next(); !next.done; next = items.next()) {
      if (op === 'update') {
        const [key, value] = next.value as [string, string];
        updates.push([Buffer.from(key, 'hex'), Buffer.from(value, 'hex')]);
      } else deletes.push(Buffer.from(next.value as string, 'hex'));
      due = budget.due();
      if (due || updates.length + deletes.length === BATCH) {
        more = true;
        break;
      }
    }
    const size = updates.length + deletes.length;
    if (size === 0) break;
    try {
      if (op === 'update') io.update(updates);
      else io.delete(deletes);
    } catch (e) {
      metrics.writeFailed(map);
      throw e;
    }
    written += size;
    if (!more) break;
    if (due) await budget.yield();
  }
  if (written > 0) metrics.written(map, op, written);
}

/** `record` after `plan` was written. */
export function applyToRecord(record: Entries, plan: Plan): void {
  for (const map of MAP_NAMES) {
    for (const [key, value] of plan.upserts[map]) record[map].set(key, value);
    for (const key of plan.deletes[map]) record[map].delete(key);
  }
}

/** A copy of `record` as it is after `plan` was written. */
export async function afterPlan(record: Entries, plan: Plan, budget?: TurnBudget): Promise<Entries> {
  const copy = emptyEntries();
  for (const map of MAP_NAMES)
    for (const [key, value] of record[map]) {
      copy[map].set(key, value);
      if (budget?.due()) await budget.yield();
    }
  applyToRecord(copy, plan);
  return copy;
}
