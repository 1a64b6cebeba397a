import {
  ConntrackTool,
  ErrorCodes,
  cleanStaleFlows,
  KpngError,
  type Backend,
  type ConntrackCleaner,
  type DriftKinds,
  type IPFamily,
  type Logger,
  log as defaultLog,
  RenderGuard,
  renderRefusals,
  type SyncOutcome,
  type SyncRequest,
} from '@kpng/core';
import { createNftClient, isTimeout, type Nft, type NftObject, Transaction } from '@kpng/nftables';
import { ExecTimeoutError, processExecer, TurnBudget, withTimeout } from '@kpng/kit';
import { release } from 'node:os';
import { Registry } from 'prom-client';
import { NetlinkIpvs } from '../ipvs/netlink-ipvs.js';
import { NetlinkError } from '../netlink/errno.js';
import type { IpvsKernel } from '../ipvs/seam.js';
import type { VirtualServer, VirtualServerKey } from '../ipvs/types.js';
import {
  type DesiredState,
  nodePortAddressesOf,
  type RenderCache,
  type RenderReuse,
  renderDesiredYielding,
} from '../render/desired.js';
import { describeOperation, type DiffResult, diffTablesYielding, type IpvsOperation } from '../render/diff.js';
import { filterTableYielding } from '../render/filter-table.js';
import { DEFAULT_IPVS_CONFIG, DUMMY_LINK, type IpvsConfig, NFT_TABLE } from '../render/options.js';
import { AppliedTable } from './applied-table.js';
import { addressDrift, IpvsDriftProbe, type IpvsDriftKind, nftDrift } from './drift.js';
import { cidrMatcher } from '../render/cidr-matcher.js';
import { NodeHost } from './host.js';
import { ipvsSysctls, type IpvsSysctl, type SysctlReport } from './sysctls.js';
import { createIpvsMetrics, type IpvsMetrics, NO_IPVS_METRICS } from './metrics.js';
import { NftTableState } from './nft-delta.js';
import type { IpvsBackendOptions } from './options.js';

const FAMILIES: readonly IPFamily[] = ['IPv4', 'IPv6'];
/** A command that has not finished in a minute is hung: an s10k nft transaction takes seconds (docs/PERFORMANCE.md, "Figures behind choices in the code"). */
export const DEFAULT_WRITE_TIMEOUT_MS = 60_000;
/** A sync gives the event loop a turn this often, so /healthz answers during an s10k sync (about a second of work). */
const DEFAULT_TURN_BUDGET_MS = 10;

/**
 * The IPVS backend: render desired virtual/real servers from the node-local state, diff them with
 * the applied table (read from the kernel on full syncs), apply the difference over netlink, then
 * the nftables table and the addresses on kube-ipvs0. IPVS has no transactions: a failed call
 * throws, the applied table is dropped, and core's retry (a full sync) re-reads the kernel and
 * converges. Real servers that leave drain at weight 0 until their connections end.
 * `check` looks for what another program removed (see `drift.ts`); the full sync it triggers
 * repairs it and reports the kinds.
 */
export class IpvsBackend implements Backend {
  readonly name = 'ipvs';
  readonly families = FAMILIES;
  readonly config: IpvsConfig;
  /** The configured `nodePortAddresses`: core resolves it at each sync into `LocalNode.nodePortAddresses`. */
  readonly nodePorts: NonNullable<Backend['nodePorts']>;
  readonly #options: IpvsBackendOptions;
  readonly #host: NodeHost;
  readonly #log: Logger;
  readonly #metrics: IpvsMetrics;
  /** Leaves out of the render whatever would not pass core's render-value validators (counted, logged). */
  readonly #guard: RenderGuard;
  readonly #conntrack: ConntrackCleaner | undefined;
  #kernel: IpvsKernel | undefined;
  #nft: Nft | undefined;
  #applied: AppliedTable | undefined;
  #draining: ReadonlyMap<VirtualServerKey, ReadonlySet<string>> = new Map();
  #addresses: Set<string> | undefined;
  #lastState: SyncRequest['state'] | undefined;
  /** Each Service's rendering at the last successful sync, for the next partial sync's reuse. */
  #rendered: RenderCache | undefined;
  /** The virtual servers of the last successful sync, for the next partial sync's nft element delta. */
  #desired: DesiredState['virtualServers'] | undefined;
  #drainTimer: NodeJS.Timeout | undefined;
  #queue: Promise<unknown> = Promise.resolve();
  readonly #excluded: (ip: string) => boolean;
  readonly #nftTables: Record<IPFamily, NftTableState> = { IPv4: new NftTableState(), IPv6: new NftTableState() };
  readonly #driftProbe: IpvsDriftProbe;
  /** Drift found by `check` and not yet repaired by a full sync. */
  #drift: IpvsDriftKind[] = [];

  constructor(options: IpvsBackendOptions = {}) {
    this.#options = options;
    this.config = { ...DEFAULT_IPVS_CONFIG, ...options.config };
    this.nodePorts = {
      addresses: this.config.nodePortAddresses,
      // Unset (or a /0): every host address but kube-ipvs0's, listed by core at each sync, as upstream's NodeIPs.
      listEveryAddressExcept: DUMMY_LINK,
      ...(options.netns === undefined ? {} : { netns: options.netns }),
    };
    // `ip` and `sysctl` under the same limit as nft: a hung one fails the sync as a timeout too.
    this.#host = new NodeHost(withTimeout(options.execer ?? processExecer, this.#writeTimeoutMs), options.netns);
    this.#log = options.logger ?? defaultLog.with({ backend: 'ipvs' });
    const metrics = options.metrics;
    this.#metrics =
      metrics === undefined ? NO_IPVS_METRICS : metrics instanceof Registry ? createIpvsMetrics(metrics) : metrics;
    this.#guard = new RenderGuard(
      renderRefusals({
        backend: 'ipvs',
        log: this.#log,
        ...(metrics instanceof Registry ? { registry: metrics } : {}),
      }),
    );
    this.#excluded = cidrMatcher(this.config.excludeCIDRs);
    this.#conntrack =
      options.conntrack === false
        ? undefined
        : (options.conntrack ??
          new ConntrackTool({
            execer: withTimeout(options.execer ?? processExecer, this.#writeTimeoutMs),
            ...(options.netns === undefined ? {} : { netns: options.netns }),
          }));
    this.#kernel = options.kernel;
    this.#nft = options.nft;
    this.#driftProbe = new IpvsDriftProbe(options.driftWindow);
  }

  async setup(): Promise<void> {
    const kernel = this.#kernelSeam();
    this.#nft ??= await createNftClient({
      ...(this.#options.netns === undefined ? {} : { netns: this.#options.netns }),
      ...(this.#options.execer === undefined ? {} : { execer: this.#options.execer }),
      timeoutMs: this.#writeTimeoutMs,
    });
    await this.#prepare(kernel);
    await this.#host.ensureDummyLink();
    const interval = this.#options.drainIntervalMs ?? 30_000;
    this.#drainTimer = setInterval(
      () =>
        void this.reapDrained().catch((error: Error) =>
          this.#log.warn('draining real servers failed', { error: error.message }),
        ),
      interval,
    );
    this.#drainTimer.unref();
  }

  /**
   * The privileged set-up upstream's ipvs NewProxier does before anything else (and all that
   * `kube-proxy --init-only` does in ipvs mode): load IPVS (opening its netlink family does), its
   * sysctls (see sysctls.ts: each failure logged by name; the fatal ones throw, together), then the
   * IPVS timeouts (a failure logged, as upstream). `setup` does it too.
   */
  async prepareNode(): Promise<SysctlReport> {
    return this.#prepare(this.#kernelSeam());
  }

  async #prepare(kernel: IpvsKernel): Promise<SysctlReport> {
    const plan = ipvsSysctls(this.config, this.#options.kernelRelease ?? release());
    const report = await this.#host.applySysctls(plan);
    for (const name of report.written) this.#log.info('set sysctl', { name, value: valueOf(plan, name) });
    for (const name of report.skipped) this.#log.info('no IPv6 on this node; sysctl left alone', { name });
    for (const f of report.failed)
      this.#log[f.fatal ? 'error' : 'warn']('cannot set sysctl', {
        name: f.name,
        value: valueOf(plan, f.name),
        err: f.error,
      });
    const fatal = report.failed.filter((f) => f.fatal);
    if (fatal.length > 0) throw new Error(`cannot set sysctl ${fatal.map((f) => `${f.name} (${f.error})`).join(', ')}`);
    const { tcpTimeout, tcpFinTimeout, udpTimeout } = this.config;
    if (tcpTimeout > 0 || tcpFinTimeout > 0 || udpTimeout > 0) {
      try {
        kernel.setTimeouts(tcpTimeout, tcpFinTimeout, udpTimeout);
      } catch (error) {
        this.#log.error('failed to configure IPVS timeouts', { err: (error as Error).message });
      }
    }
    return report;
  }

  sync(req: SyncRequest): Promise<SyncOutcome> {
    // Defence in depth: no value that fails validation reaches `ip -batch`, nft or a netlink message.
    // A refused Service renders as deleted (its key is among the changes when it is refused or accepted again).
    const state = this.#guard.state(req.state);
    return this.#serial(() => this.#sync(state === req.state ? req : { ...req, state }));
  }

  /**
   * Did another program remove what the last sync programmed? One IPVS dump plus a window of real
   * server reads, one `ip` and one check-mode `nft` call; never changes the kernel (`drift.ts`).
   */
  check(): Promise<DriftKinds> {
    return this.#serial(async () => {
      const applied = this.#applied;
      const addresses = this.#addresses;
      const nft = this.#nft;
      // Nothing applied yet, or the last sync failed: the next (full) sync rewrites everything anyway.
      if (applied === undefined || addresses === undefined || nft === undefined) return [];
      const kinds = [
        ...this.#driftProbe.probe(this.#kernelSeam(), applied.entries, (vs) => this.#owned(vs)),
        ...addressDrift(await this.#host.inspectLink(), addresses),
        ...(await nftDrift(
          nft,
          FAMILIES.map((f) => this.#nftTables[f]),
        )),
      ];
      this.#drift = [...new Set([...this.#drift, ...kinds])];
      return kinds;
    });
  }

  /** Deletes real servers at weight 0 whose connections have ended (also run on a timer). */
  reapDrained(): Promise<void> {
    return this.#serial(async () => {
      if (this.#draining.size === 0 || this.#lastState === undefined) return;
      await this.#sync({
        state: this.#lastState,
        changes: { triggerTimes: new Map(), nodeChanged: false },
        full: false,
        revision: -1,
      });
    });
  }

  /**
   * After a successful sync, the conntrack entries of UDP flows whose endpoint is gone (IPVS with
   * `vs.conntrack=1` keeps one per flow), for the Services this sync changed (all on a full sync),
   * as upstream's ipvs mode (core's `ConntrackTool`, shared with the nft and iptables backends). A
   * failure is logged: the rules are in place, a leftover flow only delays the switch.
   */
  async #cleanConntrack(req: SyncRequest): Promise<void> {
    if (this.#conntrack === undefined) return;
    await cleanStaleFlows(this.#conntrack, {
      services: req.state.services,
      updated: req.full ? undefined : req.changes.updatedServices,
      families: FAMILIES.map((family) => ({
        family,
        nodePortAddresses: () => {
          const addresses = new Set(nodePortAddressesOf(req.state.node)[family]);
          return (ip) => addresses.has(ip);
        },
      })),
      cleaned: (family, deleted, seconds) => this.#metrics.conntrackCleaned(family, deleted, seconds),
      log: this.#log,
    });
  }

  async #sync(req: SyncRequest): Promise<SyncOutcome> {
    const kernel = this.#kernelSeam();
    const nft = this.#nft;
    if (nft === undefined) throw new Error('IpvsBackend.setup() was not called');
    const budget = new TurnBudget(this.#options.turnBudgetMs ?? DEFAULT_TURN_BUDGET_MS);
    const { desired, cache, touched } = await renderDesiredYielding(req.state, this.config, this.#reuse(req), budget);
    this.#rendered = undefined;
    const previous = this.#desired;
    this.#desired = undefined;
    try {
      // A full sync re-reads the kernel and rewrites the nft tables: it repairs any drift, and
      // kube-ipvs0 too (another program may have deleted it or set it down).
      if (req.full) await this.#host.ensureDummyLink();
      if (req.full || this.#applied === undefined) this.#applied = await AppliedTable.read(kernel, budget);
      const applied = this.#applied;
      for (const key of this.#draining.keys()) {
        applied.refresh(kernel, key);
        if (budget.due()) await budget.yield();
      }
      // After a partial render, only the changed Services' virtual servers and the draining ones can
      // differ from the applied table (it matched the rest after the last sync).
      const scope = touched === undefined ? undefined : new Set([...touched, ...this.#draining.keys()]);
      const { operations, draining } = await diffTablesYielding(
        scope === undefined ? desired.virtualServers : only(desired.virtualServers, scope),
        scope === undefined ? applied.entries : only(applied.entries, scope),
        (vs) => this.#owned(vs),
        budget,
      );
      // New and changed virtual servers first, so an address or rule never points at nothing.
      const [removals, others] = partition(operations, (o) => o.op === 'deleteVirtualServer');
      await this.#applyAll(kernel, applied, others, budget);
      const changed = touched === undefined || previous === undefined ? undefined : { touched, previous };
      const { tx, families } = await this.#nftTransaction(desired, req.full, changed, budget);
      if (tx.size > 0)
        await nft.run(tx).catch((error: unknown) => {
          for (const family of families) this.#metrics.nftFailed(family);
          throw error;
        });
      await this.#syncAddresses(
        FAMILIES.flatMap((f) => desired.addresses[f]),
        req.full,
      );
      await this.#applyAll(kernel, applied, removals, budget);
      this.#draining = draining;
      this.#lastState = req.state;
      this.#rendered = cache;
      this.#desired = desired.virtualServers;
      this.#observeTable(desired, applied, draining);
      // Only a full sync repairs what `check` found (a partial one, e.g. the drain timer's, does not).
      const repaired = req.full ? this.#drift : [];
      if (req.full) this.#drift = [];
      await this.#cleanConntrack(req);
      this.#log.info('synced', {
        revision: req.revision,
        full: req.full,
        operations: operations.length,
        virtualServers: desired.virtualServers.size,
        draining: draining.size,
        ...(repaired.length > 0 ? { repaired } : {}),
      });
      return repaired.length > 0 ? { repaired } : {};
    } catch (error) {
      // The kernel may now differ from what we believe: the retry re-reads it.
      this.#applied = undefined;
      this.#addresses = undefined;
      for (const family of FAMILIES) this.#nftTables[family].forget();
      if (isTimeout(error) || error instanceof ExecTimeoutError)
        throw new KpngError(ErrorCodes.WriteTimedOut, `ipvs sync failed: ${(error as Error).message}`, {
          cause: error,
        });
      throw error;
    }
  }

  async #applyAll(
    kernel: IpvsKernel,
    applied: AppliedTable,
    operations: readonly IpvsOperation[],
    budget: TurnBudget,
  ): Promise<void> {
    for (const operation of operations) {
      this.#apply(kernel, applied, operation);
      if (budget.due()) await budget.yield();
    }
  }

  /**
   * A partial sync that names its changed Services reuses the last rendering of the others, unless
   * the node changed (its addresses and NodePort addresses are the NodePort virtual servers') or the last sync failed (its
   * rendering was not applied).
   */
  #reuse(req: SyncRequest): RenderReuse | undefined {
    const updated = req.changes.updatedServices;
    if (req.full || req.changes.nodeChanged || updated === undefined || this.#applied === undefined) return undefined;
    const before = this.#lastState?.node.addresses ?? [];
    const now = req.state.node.addresses;
    if (now.length !== before.length || now.some((a, i) => a !== before[i])) return undefined;
    const ports = (state: SyncRequest['state'] | undefined) => JSON.stringify(state?.node.nodePortAddresses ?? null);
    if (ports(this.#lastState) !== ports(req.state)) return undefined;
    return this.#rendered === undefined ? undefined : { cache: this.#rendered, updated };
  }

  #apply(kernel: IpvsKernel, applied: AppliedTable, operation: IpvsOperation): void {
    try {
      this.#call(kernel, operation);
    } catch (error) {
      this.#metrics.netlinkFailed(operation.op);
      throw error;
    }
    applied.record(operation);
    this.#log.debug(4, describeOperation(operation));
  }

  #call(kernel: IpvsKernel, operation: IpvsOperation): void {
    switch (operation.op) {
      case 'addVirtualServer':
        kernel.addVirtualServer(operation.vs);
        break;
      case 'updateVirtualServer':
        kernel.updateVirtualServer(operation.vs);
        break;
      case 'deleteVirtualServer':
        kernel.deleteVirtualServer(operation.vs);
        break;
      case 'addRealServer':
        kernel.addRealServer(operation.vs, operation.rs);
        break;
      case 'updateRealServer':
        kernel.updateRealServer(operation.vs, operation.rs);
        break;
      case 'deleteRealServer':
        kernel.deleteRealServer(operation.vs, operation.rs);
        break;
    }
  }

  /**
   * The transaction for both families' tables, and the families it writes (for the failure metric).
   * After a partial render, only the changed virtual servers' elements are looked at (`changed`).
   */
  async #nftTransaction(
    desired: DesiredState,
    full: boolean,
    changed: { touched: ReadonlySet<VirtualServerKey>; previous: DesiredState['virtualServers'] } | undefined,
    budget: TurnBudget,
  ): Promise<{ tx: Transaction; families: IPFamily[] }> {
    const tx = new Transaction();
    const families: IPFamily[] = [];
    for (const family of FAMILIES) {
      const table = this.#nftTables[family];
      const pick = (map: DesiredState['virtualServers']) =>
        [...(changed?.touched ?? [])].flatMap((key) => {
          const d = map.get(key);
          return d === undefined || d.vs.family !== family ? [] : [d];
        });
      const patched =
        changed === undefined || full
          ? undefined
          : table.patch(tx, pick(changed.previous), pick(desired.virtualServers), desired.addresses[family]);
      const queued =
        patched ??
        (await table.queue(tx, await filterTableYielding(desired, this.config, family, budget), full, budget));
      if (queued > 0) families.push(family);
    }
    return { tx, families };
  }

  #observeTable(desired: DesiredState, applied: AppliedTable, draining: DiffResult['draining']): void {
    for (const family of FAMILIES) {
      const ours = [...desired.virtualServers.values()].filter((d) => d.vs.family === family);
      let drain = 0;
      for (const [key, reals] of draining) if (applied.entries.get(key)?.vs.family === family) drain += reals.size;
      const reals = ours.reduce((sum, d) => sum + d.reals.length, 0);
      this.#metrics.tableSize(family, ours.length, reals, drain);
    }
  }

  async #syncAddresses(wanted: readonly string[], full: boolean): Promise<void> {
    if (full || this.#addresses === undefined) this.#addresses = new Set(await this.#host.addresses());
    const current = this.#addresses;
    const want = new Set(wanted);
    const add = [...want].filter((a) => !current.has(a));
    const remove = [...current].filter((a) => !want.has(a));
    await this.#host.changeAddresses(add, remove);
    this.#addresses = want;
  }

  /** After any sync in progress: a sync gives the event loop turns, and must not interleave with this. */
  cleanup(): Promise<void> {
    return this.#serial(() => this.#cleanup());
  }

  async #cleanup(): Promise<void> {
    const kernel = this.#kernelOrNone();
    for (const vs of kernel?.listVirtualServers() ?? []) if (this.#owned(vs)) kernel?.deleteVirtualServer(vs);
    this.#nft ??= await createNftClient({
      ...(this.#options.netns === undefined ? {} : { netns: this.#options.netns }),
      ...(this.#options.execer === undefined ? {} : { execer: this.#options.execer }),
      timeoutMs: this.#writeTimeoutMs,
    });
    const tx = new Transaction();
    for (const family of ['ip', 'ip6'] as const)
      tx.destroy({ kind: 'table', family, name: NFT_TABLE } satisfies NftObject);
    await this.#nft.run(tx);
    for (const family of FAMILIES) this.#nftTables[family].forget();
    await this.#host.deleteDummyLink();
    this.#applied = undefined;
    this.#addresses = undefined;
    this.#draining = new Map();
  }

  async close(): Promise<void> {
    clearInterval(this.#drainTimer);
    await this.#queue.catch(() => undefined);
    if (this.#options.kernel === undefined) this.#kernel?.close();
    this.#kernel = this.#options.kernel;
  }

  /** Virtual servers in `--ipvs-exclude-cidrs` belong to someone else: never changed, never deleted. */
  #owned(vs: VirtualServer): boolean {
    return !this.#excluded(vs.address);
  }

  /** For cleanup: a kernel without IPVS (no `IPVS` netlink family) has no virtual servers to remove. */
  #kernelOrNone(): IpvsKernel | undefined {
    try {
      return this.#kernelSeam();
    } catch (error) {
      if (error instanceof NetlinkError && error.code === 'ENOENT') return undefined;
      throw error;
    }
  }

  get #writeTimeoutMs(): number {
    return this.#options.writeTimeoutMs ?? DEFAULT_WRITE_TIMEOUT_MS;
  }

  #kernelSeam(): IpvsKernel {
    this.#kernel ??= new NetlinkIpvs(this.#options.netns === undefined ? {} : { netns: this.#options.netns });
    return this.#kernel;
  }

  #serial<T>(run: () => Promise<T>): Promise<T> {
    const next = this.#queue.then(run, run);
    this.#queue = next.catch(() => undefined);
    return next;
  }
}

function valueOf(plan: readonly IpvsSysctl[], name: string): number | undefined {
  return plan.find((s) => s.name === name)?.value;
}

function only<K, V>(map: ReadonlyMap<K, V>, keys: ReadonlySet<K>): Map<K, V> {
  const subset = new Map<K, V>();
  for (const key of keys) {
    const value = map.get(key);
    if (value !== undefined) subset.set(key, value);
  }
  return subset;
}

function partition<T>(list: readonly T[], pick: (item: T) => boolean): [T[], T[]] {
  const yes: T[] = [];
  const no: T[] = [];
  for (const item of list) (pick(item) ? yes : no).push(item);
  return [yes, no];
}
