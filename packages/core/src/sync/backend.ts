import type { IPFamily } from '../model/types.js';
import type { NodeLocalState, StateChanges } from '../nodeview/types.js';

export interface SyncRequest {
  readonly state: NodeLocalState;
  /** What changed since the last successful sync; ignore when `full`. */
  readonly changes: StateChanges;
  /** Re-render and re-apply everything (first sync, after a failure, periodic resync, node labels changed). */
  readonly full: boolean;
  /** Revision of the global model this state was computed from. */
  readonly revision: number;
  /**
   * The backend's families this node has (the Node's addresses; all of the backend's until the Node
   * is known): program these only. Unset (older callers, tests) means every family of the backend.
   */
  readonly families?: readonly IPFamily[];
}

/**
 * What a backend found when it looked at the kernel (`Backend.check`): nothing, or the kinds of
 * drift (another program removed or changed what it programmed), e.g. `table`, `chain`, `element`.
 * The kinds label `kpng_sync_drift_repairs_total` once the sync that repairs them succeeds.
 */
export type DriftKinds = readonly string[];

/** What a sync may report back to the loop. */
export interface SyncOutcome {
  /** Drift this sync found and repaired (found by `check`, or by the sync itself, e.g. a full resync). */
  readonly repaired?: DriftKinds;
}

/**
 * What a backend package implements. `sync` programs the kernel so it matches `state`, atomically:
 * on failure it throws and the previously applied rules stay intact; the runner retries with a
 * full sync after `syncPeriod`, and counts the failure.
 */
export interface Backend {
  readonly name: string;
  /** IP families this backend programs; sync metrics are observed per family. */
  readonly families: readonly IPFamily[];
  /**
   * kube-proxy's `nodePortAddresses` as this backend was configured (`[]`, `['primary']` or CIDRs)
   * and the network namespace it programs (unset: the process's own). The sync stage resolves it
   * over that namespace's interfaces before each sync into `state.node.nodePortAddresses`, which
   * the backend renders. Unset: the state carries none (every local address). With
   * `listEveryAddressExcept`, a family the setting matches wholly is resolved into a list too: the
   * host's addresses except that interface's, loopback and IPv6 link-local (ipvs mode: NodePort
   * virtual servers need addresses; `kube-ipvs0` holds Service IPs).
   */
  readonly nodePorts?: {
    readonly addresses: readonly string[];
    readonly netns?: string;
    readonly listEveryAddressExcept?: string;
  };
  /** Called once before the first sync (e.g. capability checks, creating the table skeleton). */
  setup?(): Promise<void>;
  sync(req: SyncRequest): Promise<void | SyncOutcome>;
  /**
   * A cheap look at the kernel, called every `syncPeriod` between syncs (never during one): did
   * another program remove what this backend programmed? Returns the kinds of drift found; the
   * loop then runs a full sync at once, which must repair them (the backend remembers what it
   * found, and reports it in that sync's `repaired`). Optional; must not change the kernel.
   */
  check?(): Promise<DriftKinds>;
  /** Remove everything this backend ever programmed. */
  cleanup(): Promise<void>;
  close?(): Promise<void>;
}
