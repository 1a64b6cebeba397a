/**
 * The enforcer as a core `Backend`: it runs under the same sync loop as the service backends (rate
 * limit, retries with a full sync after a failure, periodic full syncs, health, drift check) and
 * reads the policy view the core keeps in `NodeLocalState.policy`.
 */
import { Histogram, type Registry } from 'prom-client';
import type { Backend, DriftKinds, SyncOutcome, SyncRequest } from '@kpng/core';
import { metricsOn } from '@kpng/kit';
import { isNotFound } from '@kpng/nftables';
import { NetpolEnforcer, type NetpolEnforcerOptions } from './enforcer.js';
import { TABLE } from '../render/names.js';
import { skeleton } from '../render/skeleton.js';

export const POLICY_SYNC_LATENCY_METRIC = 'kpng_netpol_sync_latency_seconds';

/** From the core applying the API event of a policy, pod or namespace change to the rules enforcing it. */
export function policySyncLatency(registry: Registry): Histogram {
  return metricsOn(registry)(Histogram, {
    name: POLICY_SYNC_LATENCY_METRIC,
    help: 'Seconds from the API event of a NetworkPolicy, Pod or Namespace change (as the core applied it) to the nftables transaction enforcing it.',
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
  });
}

export interface NetpolBackendOptions extends NetpolEnforcerOptions {
  /** Where the latency histogram is registered (the program's registry). */
  readonly registry?: Registry;
  /** Epoch milliseconds (default `Date.now`), the clock `policyChangedAt` was read from. */
  readonly now?: () => number;
}

export class NetpolBackend implements Backend {
  readonly name = 'netpol';
  readonly families;
  readonly #enforcer: NetpolEnforcer;
  readonly #latency: Histogram | undefined;
  readonly #now: () => number;
  #drift: DriftKinds = [];
  #synced = false;

  constructor(options: NetpolBackendOptions = {}) {
    this.#enforcer = new NetpolEnforcer(options);
    this.families = this.#enforcer.families;
    this.#latency = options.registry ? policySyncLatency(options.registry) : undefined;
    this.#now = options.now ?? Date.now;
  }

  get enforcer(): NetpolEnforcer {
    return this.#enforcer;
  }

  async sync(req: SyncRequest): Promise<SyncOutcome> {
    const policy = req.state.policy;
    // Before Pods, Namespaces and NetworkPolicies are listed nothing is enforced (default allow).
    if (policy === undefined) return {};
    if (!req.full && req.changes.policyChangedAt === undefined && this.#synced) return {};
    await this.#enforcer.sync(policy, { full: req.full || !this.#synced });
    this.#synced = true;
    const changedAt = req.changes.policyChangedAt;
    if (changedAt !== undefined) this.#latency?.observe(Math.max(0, this.#now() - changedAt) / 1000);
    const repaired = this.#drift;
    this.#drift = [];
    return repaired.length > 0 ? { repaired } : {};
  }

  /** The table and its chains still exist (nft check mode: changes nothing). */
  async check(): Promise<DriftKinds> {
    if (!this.#synced) return [];
    const nft = await this.#enforcer.client();
    const tx = nft.newTransaction();
    for (const object of skeleton(this.families)) {
      if (object.kind === 'chain')
        tx.flush({ kind: 'chain', family: TABLE.family, table: TABLE.name, name: object.name });
    }
    try {
      await nft.check(tx);
      return [];
    } catch (e) {
      if (!isNotFound(e)) throw e;
      this.#drift = ['table'];
      this.#synced = false;
      return this.#drift;
    }
  }

  async cleanup(): Promise<void> {
    await this.#enforcer.cleanup();
    this.#synced = false;
  }

  async close(): Promise<void> {
    await this.#enforcer.close();
  }
}

/**
 * A service backend and the enforcer in one process, under one sync loop: each sync runs both
 * (the enforcer even when the service backend failed), and fails when either did, so the loop
 * retries. Their failures are apart: the loop's retry after a failure is a full sync only for the
 * backend that failed; the other one, whose last sync succeeded, gets an incremental sync (nothing
 * to write when nothing changed). A periodic full sync that falls on such a retry reaches only the
 * failed one. The loop's families and per-family metrics are the service backend's.
 */
export function besideBackend(main: Backend, netpol: Backend): Backend {
  const backends = [main, netpol] as const;
  /** Backends whose last sync failed (their next sync is full). */
  let failed = new Set<Backend>();
  return {
    name: `${main.name}+${netpol.name}`,
    families: main.families,
    // The sync stage resolves nodePortAddresses only for a backend that declares them.
    ...(main.nodePorts === undefined ? {} : { nodePorts: main.nodePorts }),
    setup: async () => {
      await main.setup?.();
      await netpol.setup?.();
    },
    sync: async (req) => {
      // After a failure the loop asks for a full sync: only the backends that failed need one.
      const afterFailure = failed.size > 0;
      const results = await Promise.allSettled(
        backends.map((backend) => backend.sync(afterFailure ? { ...req, full: failed.has(backend) } : req)),
      );
      failed = new Set(backends.filter((_, i) => results[i]?.status === 'rejected'));
      const rejected = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
      if (rejected) throw rejected.reason;
      const repaired = results.flatMap((r) => (r.status === 'fulfilled' && r.value ? (r.value.repaired ?? []) : []));
      return repaired.length > 0 ? { repaired } : {};
    },
    check: async () => [...((await main.check?.()) ?? []), ...((await netpol.check?.()) ?? [])],
    cleanup: async () => {
      await main.cleanup();
      await netpol.cleanup();
    },
    close: async () => {
      await main.close?.();
      await netpol.close?.();
    },
  };
}
