/**
 * The iptables backend: core's `Backend` over kube-proxy's iptables chains, one
 * `iptables-restore --noflush` per family per sync. A full restore runs at start, after any
 * failure, periodically (core's full syncs), and when the canary chain is gone; otherwise only the
 * changed Services' chains are written (KEP-3453). A failed restore changes nothing it had not
 * committed, is counted, and makes the next sync full. Stale UDP flows are cleaned after success.
 *
 * Drift (another program flushed or deleted our rules): `check`, every syncPeriod, looks for
 * upstream's canary chain (mangle) and every jump from the built-in chains (`iptables -C`): a
 * `-F`/`-X` of nat or filter, a firewall reload, removes those. A full restore repairs it and the
 * sync reports it. A rule deleted inside a KUBE-* chain is rewritten by the next full restore
 * (every fullSyncPeriod; top-level chains also by every partial sync), uncounted.
 */
import {
  ConntrackTool,
  ErrorCodes,
  cleanStaleFlows,
  KpngError,
  log as defaultLog,
  nodePortAddressTest,
  RenderGuard,
  renderRefusals,
  type Backend,
  type ConntrackCleaner,
  type DriftKinds,
  type IPFamily,
  type Logger,
  type ServiceKey,
  type SyncOutcome,
  type SyncRequest,
} from '@kpng/core';
import { Registry } from 'prom-client';
import { IptablesClient, savedTable, type RestoreStream } from '../iptables/client.js';
import { ExecTimeoutError } from '../iptables/errors.js';
import { processExecer } from '@kpng/kit';
import { resolveConfig, type IptablesConfig } from '../render/config.js';
import { CHAIN } from '../render/names.js';
import { localhostNodePorts } from '../render/skeleton.js';
import { cleanupFamily } from './cleanup.js';
import {
  FamilyProgrammer,
  type Draft,
  type FamilyPlan,
  type PlanRequest,
  type SavedTables,
} from './family-programmer.js';
import { createIptablesMetrics, NO_METRICS, registerNfacctMetrics, type IptablesMetrics } from './metrics.js';
import { NFACCT_COUNTERS, NfacctReader, NfacctTool } from '../iptables/nfacct.js';
import { DEFAULT_WRITE_TIMEOUT_MS, type IptablesBackendOptions } from './options.js';
import { nftFlavourWarning } from './scale-warning.js';

export class IptablesBackend implements Backend {
  readonly name = 'iptables';
  readonly families: readonly IPFamily[];
  /** The configured `nodePortAddresses`: core resolves it at each sync into `LocalNode.nodePortAddresses`. */
  readonly nodePorts: NonNullable<Backend['nodePorts']>;
  readonly config: IptablesConfig;
  readonly client: IptablesClient;
  readonly #programmers: FamilyProgrammer[];
  readonly #metrics: IptablesMetrics;
  readonly #conntrack: ConntrackCleaner | undefined;
  readonly #log: Logger;
  /** Leaves out of the render whatever would not pass core's render-value validators (counted, logged). */
  readonly #guard: RenderGuard;
  readonly #canaryInterval: number;
  readonly #now: () => number;
  readonly #ruleLimit: number | undefined;
  #detected: { readonly flavour: 'legacy' | 'nft' | undefined; readonly version: string } | undefined;
  #lastCanaryCheck = 0;
  #warned = false;
  #localnetSet = false;
  /** Drift found by `check` (or by a partial sync's canary probe) and not yet repaired. */
  #drift = new Set<string>();
  /** Per family, the dump `setup` started for the first sync (used once, if still recent). */
  /** route_localnet, started by `setup` (the first sync waits for it). */
  #localnet: { result(): Promise<void> } | undefined;
  readonly #nfacct: NfacctTool | undefined;
  /** The nfacct counters made sure of, once (upstream's NewProxier); started by `setup` or the first sync. */
  #nfacctReady: Promise<void> | undefined;
  #prefetched: ({ readonly at: number; readonly dump: { result(): Promise<SavedTables> } } | undefined)[] = [];

  constructor(options: IptablesBackendOptions = {}) {
    this.config = resolveConfig(options);
    this.families = this.config.families;
    const npa = this.config.nodePortAddresses;
    this.nodePorts = {
      addresses: npa === 'primary' ? ['primary'] : npa,
      ...(options.netns === undefined ? {} : { netns: options.netns }),
    };
    const execer = options.execer ?? processExecer;
    this.client = new IptablesClient({
      execer,
      flavour: this.config.flavour,
      timeoutMs: options.writeTimeoutMs ?? DEFAULT_WRITE_TIMEOUT_MS,
      ...(options.netns === undefined ? {} : { netns: options.netns }),
    });
    this.#programmers = this.families.map((family) => new FamilyProgrammer(this.config, family));
    const metrics = options.metrics;
    this.#metrics =
      metrics === undefined ? NO_METRICS : metrics instanceof Registry ? createIptablesMetrics(metrics) : metrics;
    this.#conntrack =
      options.conntrack === false
        ? undefined
        : (options.conntrack ??
          new ConntrackTool({ execer, ...(options.netns === undefined ? {} : { netns: options.netns }) }));
    this.#log = options.log ?? defaultLog.with({ backend: 'iptables' });
    this.#nfacct =
      options.nfacct === false
        ? undefined
        : (options.nfacct ??
          new NfacctTool({ execer, ...(options.netns === undefined ? {} : { netns: options.netns }) }));
    if (this.#nfacct !== undefined && metrics instanceof Registry) {
      const reader = new NfacctReader(this.#nfacct);
      registerNfacctMetrics(metrics, (name) => reader.packets(name));
    }
    this.#guard = new RenderGuard(
      renderRefusals({
        backend: 'iptables',
        log: this.#log,
        ...(metrics instanceof Registry ? { registry: metrics } : {}),
      }),
    );
    this.#canaryInterval = options.canaryIntervalMs ?? 30_000;
    this.#now = options.now ?? Date.now;
    this.#ruleLimit = options.nftFlavourRuleLimit;
  }

  /** Learns (and logs) the host's iptables flavour. */
  async setup(): Promise<void> {
    await this.#detect();
    // The first sync needs what the kernel holds (leftover chains, missing jumps): read it now,
    // while the program waits for the API server's first lists, not on the first sync's path.
    const at = this.#now();
    this.#prefetched = this.families.map((family) => ({ at, dump: settled(this.#save(family)) }));
    this.#localnet = settled(this.#routeLocalnet());
    this.#nfacctReady ??= this.#ensureNfacct();
  }

  /** `legacy` or `nft`, once known (after setup or the first sync). */
  get flavour(): 'legacy' | 'nft' | undefined {
    return this.#detected?.flavour;
  }

  /** See the file comment: iptables reads only, ~1 + 12 calls per family; never changes the kernel. */
  async check(): Promise<DriftKinds> {
    const found = new Set<string>();
    for (const programmer of this.#programmers) {
      if (!programmer.knowsKernel) continue; // the next sync is a full restore anyway
      const family = programmer.family;
      let kind: string | undefined;
      if (!(await this.client.chainExists(family, 'mangle', CHAIN.canary))) kind = 'table';
      else
        for (const jump of programmer.jumps()) {
          if (await this.client.ruleExists(family, jump.table, jump.from, jump.args)) continue;
          kind = 'rule';
          break;
        }
      if (kind === undefined) continue;
      programmer.reset();
      found.add(kind);
      this.#drift.add(kind);
    }
    return [...found];
  }

  async sync(req: SyncRequest): Promise<SyncOutcome> {
    try {
      return await this.#sync(req);
    } catch (e) {
      // A read the sync waits for (iptables-save, a canary probe) hung and was killed: a timeout too.
      if (!(e instanceof ExecTimeoutError)) throw e;
      for (const programmer of this.#programmers) programmer.reset();
      throw new KpngError(ErrorCodes.WriteTimedOut, `iptables sync failed: ${e.message}`, { cause: e });
    }
  }

  async #sync(given: SyncRequest): Promise<SyncOutcome> {
    // Defence in depth: no value that fails validation reaches iptables-restore's text. A refused
    // Service renders as deleted (its key is among the changes when it is refused or accepted again).
    const req = { ...given, state: this.#guard.state(given.state) };
    await this.#detect();
    await (this.#nfacctReady ??= this.#ensureNfacct());
    const started = performance.now();
    const updated = req.full || req.changes.nodeChanged ? undefined : req.changes.updatedServices;
    const canaryDue = updated !== undefined && this.#now() - this.#lastCanaryCheck >= this.#canaryInterval;
    const plans: FamilyPlan[] = [];
    // The canary probes (every canaryIntervalMs in partial syncs) decide whether a family is rendered in full.
    const canaries = this.#programmers.map((p) =>
      canaryDue && p.knowsKernel ? this.client.chainExists(p.family, 'mangle', CHAIN.canary) : Promise.resolve(true),
    );
    for (const [i, present] of (await Promise.all(canaries)).entries()) {
      const programmer = this.#programmers[i] as FamilyProgrammer;
      if (present) continue;
      this.#log.warn('KUBE-PROXY-CANARY is gone (iptables flushed by another program): full restore', {
        family: programmer.family,
      });
      programmer.reset();
      this.#drift.add('table');
    }
    const fresh = this.#programmers.map((p) => !p.knowsKernel);
    // A process start blocks this thread until the child runs (fork, then exec), tens of ms on a busy
    // machine: `setup` started the first sync's dumps and route_localnet; later (after a failure or
    // drift), only the first family's dump starts before rendering; the next family's dump and
    // route_localnet start while a restore runs, which they finish well within.
    const saves: ({ result(): Promise<SavedTables> } | undefined)[] = [];
    const prefetched = this.#prefetched;
    this.#prefetched = [];
    const startSave = (i: number): void => {
      const programmer = this.#programmers[i];
      if (programmer === undefined || fresh[i] !== true || saves[i] !== undefined) return;
      const early = prefetched[i];
      saves[i] =
        early !== undefined && this.#now() - early.at <= PREFETCH_MAX_AGE_MS
          ? early.dump
          : settled(this.#save(programmer.family));
    };
    let localnet: { result(): Promise<void> } | undefined;
    const startLocalnet = (): void => {
      if (!fresh.some(Boolean)) return;
      localnet ??= this.#localnet ?? settled(this.#routeLocalnet());
      this.#localnet = undefined;
    };
    // A full restore (never a no-op) starts before its input is rendered: the process starts while
    // this thread renders. It is sent its input only once the whole input is rendered, so an error
    // while rendering kills a process that never saw a COMMIT (nor took the xtables lock, which
    // iptables-restore takes at its first `*table` line).
    const streams: (RestoreStream | undefined)[] = [];
    const startRestore = (i: number): void => {
      const programmer = this.#programmers[i];
      if (programmer === undefined || streams[i] !== undefined) return;
      if (fresh[i] === true || updated === undefined) streams[i] = this.client.startRestore(programmer.family);
    };
    const request = (i: number): PlanRequest => ({
      state: req.state,
      updated: fresh[i] === true ? undefined : updated,
    });
    // Held until awaited: a failure of the next family's rendering is reported if its turn comes.
    const prepare = (i: number): { result(): Promise<Draft> } | undefined => {
      const programmer = this.#programmers[i];
      return programmer === undefined ? undefined : settled(programmer.prepare(request(i)));
    };
    try {
      startSave(0);
      // Every process starts before rendering: while a restore runs, this thread must feed its pipe.
      for (const i of this.#programmers.keys()) startRestore(i);
      let next = prepare(0);
      for (const [i, programmer] of this.#programmers.entries()) {
        const family = programmer.family;
        const draft = await (next ?? settled(programmer.prepare(request(i)))).result();
        next = undefined;
        startSave(i);
        const saved = await saves[i]?.result();
        const plan = draft.finish(saved);
        // Before the restore: on an iptables-nft host at scale, the restore itself is what takes minutes.
        this.#warnOnce(plan);
        try {
          if (!plan.noop) {
            const stream = streams[i] ?? this.client.startRestore(family);
            streams[i] = stream;
            for (const part of plan.parts) stream.write(part);
            const restoring = stream.finish();
            streams[i] = undefined;
            startSave(i + 1);
            startLocalnet();
            startRestore(i + 1);
            // The next family renders while this one's restore runs.
            next = prepare(i + 1);
            await restoring;
          }
        } catch (e) {
          programmer.reset();
          this.#metrics.restoreFailed(family, plan.partial);
          this.#log.error(
            'iptables-restore failed; rules not committed stay as they were and the next sync is a full one',
            {
              family,
              partial: plan.partial,
              error: e instanceof Error ? e.message : String(e),
            },
          );
          throw new KpngError(
            e instanceof ExecTimeoutError ? ErrorCodes.WriteTimedOut : ErrorCodes.SyncFailed,
            `iptables-restore (${family}) failed: ${e instanceof Error ? e.message : String(e)}`,
            { cause: e },
          );
        }
        plan.commit();
        plans.push(plan);
        this.#metrics.rules(family, plan.written, plan.total);
      }
    } finally {
      // Rendering threw, a dump failed, or an earlier family's restore did: the restores started
      // for what follows never get their input.
      for (const stream of streams) stream?.abort();
    }
    startLocalnet();
    await localnet?.result();
    if (canaryDue) this.#lastCanaryCheck = this.#now();
    this.#log.info('synced iptables', {
      partial: plans.every((p) => p.partial),
      revision: req.revision,
      services: req.state.services.length,
      changed: updated?.size ?? req.state.services.length,
      chainsWritten: plans.reduce((n, p) => n + p.chainsWritten, 0),
      chainsDeleted: plans.reduce((n, p) => n + p.chainsDeleted, 0),
      ms: Math.round(performance.now() - started),
    });
    await this.#cleanConntrack(req, plans.some((p) => !p.partial) ? undefined : updated);
    const repaired = [...this.#drift];
    this.#drift.clear();
    return repaired.length > 0 ? { repaired } : {};
  }

  async cleanup(): Promise<void> {
    // Both families, whatever is configured now: a previous run may have programmed the other.
    for (const family of ['IPv4', 'IPv6'] as const) await cleanupFamily(this.client, family);
    for (const programmer of this.#programmers) programmer.reset();
    this.#prefetched = [];
  }

  async #detect(): Promise<void> {
    if (this.#detected !== undefined) return;
    this.#detected = await this.client.detectFlavour();
    this.#log.info('iptables detected', {
      flavour: this.#detected.flavour ?? 'unknown',
      version: this.#detected.version,
    });
  }

  /** What the kernel holds, in one `iptables-save` of every table (a process per table costs more than the bytes). */
  async #save(family: IPFamily): Promise<SavedTables> {
    const dump = await this.client.save(family);
    return { nat: savedTable(dump, 'nat'), filter: savedTable(dump, 'filter') };
  }

  /** Creates the missing nfacct counters; the rules match those that exist. Never rejects (upstream: logged, not fatal). */
  async #ensureNfacct(): Promise<void> {
    const tool = this.#nfacct;
    if (tool === undefined) return;
    const present = new Set<string>();
    for (const name of NFACCT_COUNTERS) {
      try {
        await tool.ensure(name);
        present.add(name);
      } catch (e) {
        this.#log.warn('nfacct counter not available: its rule is written without it and its metric stays 0', {
          counter: name,
          error: e instanceof Error ? e.message.split('\n')[0] : String(e),
        });
      }
    }
    for (const programmer of this.#programmers) programmer.useNfacct(present);
  }

  /** Localhost NodePorts need route_localnet (upstream sets it at start; here at setup, else with a full sync, until it is set). */
  async #routeLocalnet(): Promise<void> {
    if (this.#localnetSet || !this.families.includes('IPv4')) return;
    if (!localhostNodePorts({ config: this.config, family: 'IPv4' })) return;
    const result = await this.client.run(['sysctl', '-q', '-w', 'net.ipv4.conf.all.route_localnet=1']);
    if (result.exitCode !== 0)
      this.#log.warn('cannot set route_localnet: localhost NodePorts will not work', { error: result.stderr.trim() });
    this.#localnetSet = result.exitCode === 0;
  }

  #warnOnce(plan: FamilyPlan): void {
    if (this.#warned) return;
    const nat = plan.total.nat;
    const warning = nftFlavourWarning(this.#detected?.flavour, nat, this.#ruleLimit);
    if (warning === undefined) return;
    this.#warned = true;
    this.#log.warn(warning, { natRules: nat });
  }

  async #cleanConntrack(req: SyncRequest, updated: ReadonlySet<ServiceKey> | undefined): Promise<void> {
    if (this.#conntrack === undefined) return;
    await cleanStaleFlows(this.#conntrack, {
      services: req.state.services,
      updated,
      families: this.families.map((family) => ({
        family,
        // The addresses core resolved (loopback among them when selected); any when the family matches all.
        nodePortAddresses: () => nodePortAddressTest(req.state.node, family),
      })),
      cleaned: (family, deleted, seconds) => this.#metrics.conntrackCleaned(family, deleted, seconds),
      log: this.#log,
    });
  }
}

/**
 * How old `setup`'s dump may be for the first sync to use it instead of reading the kernel again.
 * Another program may change the tables meanwhile, as it may at any time after a sync: what a
 * stale dump misses (a jump removed) the drift check finds within its period, which is this long.
 */
const PREFETCH_MAX_AGE_MS = 30_000;

/** A promise whose rejection is held until `result()` is awaited (no unhandled rejection meanwhile). */
function settled<T>(promise: Promise<T>): { result(): Promise<T> } {
  const outcome = promise.then(
    (value) => ({ ok: true as const, value }),
    (error: unknown) => ({ ok: false as const, error }),
  );
  return {
    async result() {
      const o = await outcome;
      if (!o.ok) throw o.error;
      return o.value;
    },
  };
}
