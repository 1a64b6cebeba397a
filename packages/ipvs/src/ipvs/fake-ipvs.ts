import { NetlinkError } from '../netlink/errno.js';
import type { IpvsCall, IpvsKernel } from './seam.js';
import {
  type ObservedRealServer,
  type RealServer,
  realServerKey,
  type VirtualServer,
  type VirtualServerKey,
  virtualServerKey,
} from './types.js';

const EEXIST = 17;
const ESRCH = 3;
const ENOENT = 2;

/** Schedulers Debian's kernels ship as `ip_vs_<name>` modules. */
export const KERNEL_SCHEDULERS = new Set([
  'rr',
  'wrr',
  'lc',
  'wlc',
  'lblc',
  'lblcr',
  'dh',
  'sh',
  'sed',
  'nq',
  'fo',
  'ovf',
  'mh',
  'twos',
]);

interface Entry {
  vs: VirtualServer;
  readonly reals: Map<string, ObservedRealServer>;
}

/**
 * An in-memory IPVS table that refuses what the kernel refuses, with the kernel's errno (checked by
 * running `ipvs-cases.ts` on both): EEXIST for a duplicate virtual or real server, ESRCH for a
 * missing virtual server, ENOENT for a missing real server or an unknown scheduler. Records every
 * mutating call, so tests can assert what a sync touched. `failNext` injects a kernel error.
 */
export class FakeIpvs implements IpvsKernel {
  readonly calls: IpvsCall[] = [];
  readonly #table = new Map<VirtualServerKey, Entry>();
  #failures: { op: IpvsCall['op']; errno: number }[] = [];

  /** The next call of `op` fails with `errno` (after being recorded), as a kernel refusal would. */
  failNext(op: IpvsCall['op'], errno: number): void {
    this.#failures.push({ op, errno });
  }

  /** Sets a real server's connection counters (what traffic would do). */
  setConnections(vs: VirtualServer, rs: Pick<RealServer, 'address' | 'port'>, active: number, inactive = 0): void {
    const entry = this.#entry(vs, 'set connections');
    const real = entry.reals.get(realServerKey(rs));
    if (real === undefined) throw new NetlinkError(ENOENT, 'set connections');
    entry.reals.set(realServerKey(rs), { ...real, activeConnections: active, inactiveConnections: inactive });
  }

  listVirtualServers(): VirtualServer[] {
    return [...this.#table.values()].map((e) => e.vs);
  }

  /** Like the kernel's dump: a missing virtual server lists no real servers (no error). */
  listRealServers(vs: VirtualServer): ObservedRealServer[] {
    return [...(this.#table.get(virtualServerKey(vs))?.reals.values() ?? [])];
  }

  addVirtualServer(vs: VirtualServer): void {
    const operation = this.#record(
      { op: 'addVirtualServer', vs: virtualServerKey(vs) },
      `add virtual server ${virtualServerKey(vs)}`,
    );
    if (this.#table.has(virtualServerKey(vs))) throw new NetlinkError(EEXIST, operation);
    this.#checkScheduler(vs, operation);
    this.#table.set(virtualServerKey(vs), { vs, reals: new Map() });
  }

  updateVirtualServer(vs: VirtualServer): void {
    const operation = this.#record(
      { op: 'updateVirtualServer', vs: virtualServerKey(vs) },
      `update virtual server ${virtualServerKey(vs)}`,
    );
    const entry = this.#entry(vs, operation);
    this.#checkScheduler(vs, operation);
    entry.vs = vs;
  }

  deleteVirtualServer(vs: VirtualServer): void {
    const operation = this.#record(
      { op: 'deleteVirtualServer', vs: virtualServerKey(vs) },
      `delete virtual server ${virtualServerKey(vs)}`,
    );
    this.#entry(vs, operation);
    this.#table.delete(virtualServerKey(vs));
  }

  addRealServer(vs: VirtualServer, rs: RealServer): void {
    const operation = this.#record(
      { op: 'addRealServer', vs: virtualServerKey(vs), rs: realServerKey(rs), weight: rs.weight },
      `add real server ${realServerKey(rs)} to ${virtualServerKey(vs)}`,
    );
    const entry = this.#entry(vs, operation);
    if (entry.reals.has(realServerKey(rs))) throw new NetlinkError(EEXIST, operation);
    entry.reals.set(realServerKey(rs), {
      address: rs.address,
      port: rs.port,
      weight: rs.weight,
      activeConnections: 0,
      inactiveConnections: 0,
    });
  }

  updateRealServer(vs: VirtualServer, rs: RealServer): void {
    const operation = this.#record(
      { op: 'updateRealServer', vs: virtualServerKey(vs), rs: realServerKey(rs), weight: rs.weight },
      `update real server ${realServerKey(rs)} of ${virtualServerKey(vs)}`,
    );
    const entry = this.#entry(vs, operation);
    const real = entry.reals.get(realServerKey(rs));
    if (real === undefined) throw new NetlinkError(ENOENT, operation);
    entry.reals.set(realServerKey(rs), { ...real, weight: rs.weight });
  }

  deleteRealServer(vs: VirtualServer, rs: RealServer): void {
    const operation = this.#record(
      { op: 'deleteRealServer', vs: virtualServerKey(vs), rs: realServerKey(rs), weight: rs.weight },
      `delete real server ${realServerKey(rs)} of ${virtualServerKey(vs)}`,
    );
    const entry = this.#entry(vs, operation);
    if (!entry.reals.delete(realServerKey(rs))) throw new NetlinkError(ENOENT, operation);
  }

  /** The timeouts last set (seconds; 0 = unchanged). */
  timeouts = { tcp: 0, tcpFin: 0, udp: 0 };

  setTimeouts(tcp: number, tcpFin: number, udp: number): void {
    this.timeouts = {
      tcp: tcp || this.timeouts.tcp,
      tcpFin: tcpFin || this.timeouts.tcpFin,
      udp: udp || this.timeouts.udp,
    };
  }

  flush(): void {
    this.#record({ op: 'flush' }, 'flush virtual servers');
    this.#table.clear();
  }

  close(): void {}

  #record(call: IpvsCall, operation: string): string {
    this.calls.push(call);
    const index = this.#failures.findIndex((f) => f.op === call.op);
    if (index >= 0) {
      const [failure] = this.#failures.splice(index, 1);
      throw new NetlinkError(failure?.errno ?? 1, operation);
    }
    return operation;
  }

  #entry(vs: VirtualServer, operation: string): Entry {
    const entry = this.#table.get(virtualServerKey(vs));
    if (entry === undefined) throw new NetlinkError(ESRCH, operation);
    return entry;
  }

  #checkScheduler(vs: VirtualServer, operation: string): void {
    if (!KERNEL_SCHEDULERS.has(vs.scheduler)) throw new NetlinkError(ENOENT, operation);
  }
}
