import type { TurnBudget } from '@kpng/kit';
import type { IpvsKernel } from '../ipvs/seam.js';
import {
  type ObservedRealServer,
  type RealServer,
  realServerKey,
  type VirtualServerKey,
  virtualServerKey,
} from '../ipvs/types.js';
import type { AppliedVirtualServer, IpvsOperation } from '../render/diff.js';

type Reals = Map<string, ObservedRealServer | RealServer>;

/**
 * What the backend believes the kernel's IPVS table holds: read from the kernel on a full sync,
 * then kept up to date operation by operation, so a partial sync diffs in memory and its netlink
 * calls are only the changes.
 */
export class AppliedTable {
  readonly #entries = new Map<VirtualServerKey, { vs: AppliedVirtualServer['vs']; reals: Reals }>();

  /** One netlink dump per virtual server: gives the event loop a turn whenever `budget` is spent. */
  static async read(kernel: IpvsKernel, budget: TurnBudget): Promise<AppliedTable> {
    const table = new AppliedTable();
    for (const vs of kernel.listVirtualServers()) {
      table.#entries.set(virtualServerKey(vs), {
        vs,
        reals: new Map(kernel.listRealServers(vs).map((rs) => [realServerKey(rs), rs])),
      });
      if (budget.due()) await budget.yield();
    }
    return table;
  }

  get entries(): ReadonlyMap<VirtualServerKey, AppliedVirtualServer> {
    return this.#entries;
  }

  /** Replaces one virtual server's real servers with the kernel's view (fresh connection counters). */
  refresh(kernel: IpvsKernel, key: VirtualServerKey): void {
    const entry = this.#entries.get(key);
    if (entry === undefined) return;
    entry.reals = new Map(kernel.listRealServers(entry.vs).map((rs) => [realServerKey(rs), rs]));
  }

  record(operation: IpvsOperation): void {
    const key = virtualServerKey(operation.vs);
    switch (operation.op) {
      case 'addVirtualServer':
        this.#entries.set(key, { vs: operation.vs, reals: new Map() });
        return;
      case 'updateVirtualServer': {
        const entry = this.#entries.get(key);
        if (entry !== undefined) entry.vs = operation.vs;
        return;
      }
      case 'deleteVirtualServer':
        this.#entries.delete(key);
        return;
      case 'addRealServer':
      case 'updateRealServer': {
        const reals = this.#entries.get(key)?.reals;
        const previous = reals?.get(realServerKey(operation.rs));
        reals?.set(
          realServerKey(operation.rs),
          previous === undefined ? operation.rs : { ...previous, weight: operation.rs.weight },
        );
        return;
      }
      case 'deleteRealServer':
        this.#entries.get(key)?.reals.delete(realServerKey(operation.rs));
        return;
    }
  }
}
