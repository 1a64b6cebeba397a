import {
  type ObservedRealServer,
  type RealServer,
  realServerKey,
  type VirtualServer,
  type VirtualServerKey,
  virtualServerKey,
} from '../ipvs/types.js';
import { diffKeyed, runSteps, runStepsYielding, type Steps, type TurnBudget } from '@kpng/kit';
import type { DesiredVirtualServer } from './desired.js';

/** What the kernel holds (or is believed to hold) for one virtual server. */
export interface AppliedVirtualServer {
  readonly vs: VirtualServer;
  readonly reals: ReadonlyMap<string, ObservedRealServer | RealServer>;
}

export type IpvsOperation =
  | { readonly op: 'addVirtualServer' | 'updateVirtualServer' | 'deleteVirtualServer'; readonly vs: VirtualServer }
  | {
      readonly op: 'addRealServer' | 'updateRealServer' | 'deleteRealServer';
      readonly vs: VirtualServer;
      readonly rs: RealServer;
    };

export interface DiffResult {
  readonly operations: readonly IpvsOperation[];
  /** Real servers left at weight 0 until their connections end (graceful termination). */
  readonly draining: ReadonlyMap<VirtualServerKey, ReadonlySet<string>>;
}

/**
 * The operations that turn `applied` into `desired`, touching nothing that already matches. A real
 * server that is no longer wanted but still has TCP connections is set to weight 0 (no new
 * connections, existing ones continue) and deleted by a later diff once its counters reach zero;
 * UDP real servers go at once, as upstream does (with expire_nodest_conn, their flows end on the
 * next packet). `owned` says which applied virtual servers this backend may delete.
 */
export function diffTables(
  desired: ReadonlyMap<VirtualServerKey, DesiredVirtualServer>,
  applied: ReadonlyMap<VirtualServerKey, AppliedVirtualServer>,
  owned: (vs: VirtualServer) => boolean,
): DiffResult {
  return runSteps(diffSteps(desired, applied, owned));
}

/** `diffTables`, giving the event loop a turn whenever `budget` is spent. */
export function diffTablesYielding(
  desired: ReadonlyMap<VirtualServerKey, DesiredVirtualServer>,
  applied: ReadonlyMap<VirtualServerKey, AppliedVirtualServer>,
  owned: (vs: VirtualServer) => boolean,
  budget: TurnBudget,
): Promise<DiffResult> {
  return runStepsYielding(diffSteps(desired, applied, owned), budget);
}

/** A held virtual server is always compared (scheduler, persistence, real servers). */
const NEVER_SAME = (): boolean => false;

/** One step per desired, then per applied virtual server. */
function* diffSteps(
  desired: ReadonlyMap<VirtualServerKey, DesiredVirtualServer>,
  applied: ReadonlyMap<VirtualServerKey, AppliedVirtualServer>,
  owned: (vs: VirtualServer) => boolean,
): Steps<DiffResult> {
  const operations: IpvsOperation[] = [];
  const draining = new Map<VirtualServerKey, Set<string>>();
  yield* diffKeyed(desired, applied, NEVER_SAME, {
    added: (key, want) => diffVirtualServer(key, want, undefined, operations, draining),
    changed: (key, want, have) => diffVirtualServer(key, want, have, operations, draining),
    removed: (_key, have) => {
      if (owned(have.vs)) operations.push({ op: 'deleteVirtualServer', vs: have.vs });
    },
  });
  return { operations, draining };
}

function diffVirtualServer(
  key: VirtualServerKey,
  want: DesiredVirtualServer,
  have: AppliedVirtualServer | undefined,
  operations: IpvsOperation[],
  draining: Map<VirtualServerKey, Set<string>>,
): void {
  if (have === undefined) {
    operations.push({ op: 'addVirtualServer', vs: want.vs });
    for (const rs of want.reals) operations.push({ op: 'addRealServer', vs: want.vs, rs });
    return;
  }
  if (have.vs.scheduler !== want.vs.scheduler || have.vs.persistentSeconds !== want.vs.persistentSeconds) {
    operations.push({ op: 'updateVirtualServer', vs: want.vs });
  }
  const wanted = new Map(want.reals.map((rs) => [realServerKey(rs), rs]));
  const sameWeight = (rs: RealServer, current: ObservedRealServer | RealServer): boolean =>
    rs.weight === current.weight;
  runSteps(
    diffKeyed(wanted, have.reals, sameWeight, {
      added: (_rsKey, rs) => operations.push({ op: 'addRealServer', vs: want.vs, rs }),
      changed: (_rsKey, rs) => operations.push({ op: 'updateRealServer', vs: want.vs, rs }),
      removed: (rsKey, current) => {
        const rs: RealServer = { address: current.address, port: current.port, weight: 0 };
        if (want.vs.protocol !== 'UDP' && connections(current) > 0) {
          if (current.weight !== 0) operations.push({ op: 'updateRealServer', vs: want.vs, rs });
          draining.set(key, (draining.get(key) ?? new Set()).add(rsKey));
        } else {
          operations.push({ op: 'deleteRealServer', vs: want.vs, rs });
        }
      },
    }),
  );
}

/**
 * A believed-applied real server has unknown counters (`RealServer` only): treat it as busy, so
 * it drains instead of dropping connections; the next read of the kernel table settles it.
 */
function connections(rs: ObservedRealServer | RealServer): number {
  if (!('activeConnections' in rs)) return Number.POSITIVE_INFINITY;
  return rs.activeConnections + rs.inactiveConnections;
}

export function describeOperation(operation: IpvsOperation): string {
  const vs = virtualServerKey(operation.vs);
  return 'rs' in operation
    ? `${operation.op} ${realServerKey(operation.rs)} w${operation.rs.weight} @ ${vs}`
    : `${operation.op} ${vs}`;
}
