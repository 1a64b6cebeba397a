/**
 * The Windows backend: core's `Backend` over HNS load balancers. Each sync renders the changed
 * Services (all of them on a full sync), diffs them against a mirror of HNS and applies only the
 * difference. Full syncs (first, after a failure, periodic, network changed) re-read HNS first, so
 * drift is repaired; partial syncs cost no listing. A failed apply is undone and rethrown: core's
 * SyncLoop counts it and retries with a full sync.
 */
import {
  ErrorCodes,
  ipFamilyOf,
  KpngError,
  log as defaultLog,
  type Backend,
  type IPFamily,
  type Logger,
  type NodeLocalState,
  type ServiceKey,
  type SyncRequest,
} from '@kpng/core';
import { Registry } from 'prom-client';
import type { Hns } from '../hcn/hns.js';
import { resolveConfig, type WinKernelConfig } from '../render/config.js';
import { nodeIPsOf, renderState, serviceVipEndpoints, type RenderContext } from '../render/intents.js';
import { conjureMac, networkInfo, type NetworkInfo } from '../render/network.js';
import { applyPlan, UndoFailedError } from './apply.js';
import { hostMacOf } from './host-mac.js';
import { createWinKernelMetrics, NO_METRICS, type WinKernelMetrics } from './metrics.js';
import { HnsMirror } from './mirror.js';
import { planSync } from './plan.js';
import type { WinKernelBackendOptions } from './options.js';

export class WinKernelBackend implements Backend {
  readonly name = 'win-kernel';
  readonly families: readonly IPFamily[];
  readonly config: WinKernelConfig;
  readonly #options: WinKernelBackendOptions;
  readonly #metrics: WinKernelMetrics;
  readonly #log: Logger;
  #hns: Hns | undefined;
  #mirror = new HnsMirror();
  /** The mirror cannot be trusted (first sync, after a failure): re-read HNS. */
  #needInventory = true;
  #network: NetworkInfo | undefined;
  #gatewayId: string | undefined;

  constructor(options: WinKernelBackendOptions) {
    this.#options = options;
    this.config = resolveConfig(options);
    this.families = this.config.families;
    const metrics = options.metrics;
    this.#metrics =
      metrics === undefined ? NO_METRICS : metrics instanceof Registry ? createWinKernelMetrics(metrics) : metrics;
    this.#log = options.log ?? defaultLog.with({ backend: 'win-kernel' });
    this.#hns = options.hns;
  }

  /**
   * Checks the network once at start. A network that does not exist yet (the CNI plugin creates it
   * when the first pod starts) is not fatal: every sync looks again, and fails until it is there,
   * as upstream waits for it.
   */
  async setup(): Promise<void> {
    let network: NetworkInfo;
    try {
      network = await this.#loadNetwork();
    } catch (e) {
      if (e instanceof KpngError && e.code === ErrorCodes.SyncFailed) return void this.#log.warn(e.message);
      throw e;
    }
    if (network.overlay && this.config.families.includes('IPv6'))
      this.#log.info('overlay networks are IPv4 only on Windows; IPv6 is not programmed', { network: network.name });
  }

  async sync(req: SyncRequest): Promise<void> {
    const started = performance.now();
    const hns = await this.#client();
    const previous = this.#network;
    const network = await this.#loadNetwork();
    const networkChanged = previous !== undefined && JSON.stringify(previous) !== JSON.stringify(network);
    const updated = req.changes.updatedServices;
    const full = req.full || this.#needInventory || networkChanged || updated === undefined || req.changes.nodeChanged;
    if (full) {
      const [lbs, endpoints] = await Promise.all([hns.listLoadBalancers(), hns.listEndpoints(network.id)]);
      this.#mirror = HnsMirror.fromHns(lbs, endpoints, this.#mirror);
      this.#gatewayId = this.config.forwardHealthCheckVip
        ? endpoints.find((e) => e.Name === this.config.rootHnsEndpointName)?.ID
        : undefined;
      if (this.config.forwardHealthCheckVip && this.#gatewayId === undefined) {
        this.#log.warn('the root HNS endpoint was not found: health-check VIPs are not forwarded', {
          name: this.config.rootHnsEndpointName,
        });
      }
    }
    const ctx = this.#context(req.state, network);
    const scope = full ? undefined : (updated as ReadonlySet<ServiceKey>);
    const renders = renderState(req.state, ctx, scope);
    const plan = planSync({
      mirror: this.#mirror,
      renders,
      full,
      ...(scope === undefined ? {} : { scope }),
      networkId: network.id,
      keepRemote: serviceVipEndpoints(req.state, ctx),
      ...(network.overlay && this.config.sourceVip !== undefined
        ? {
            sourceVipEndpoint: {
              ip: this.config.sourceVip,
              mac: ctx.hostMac ?? conjureMac('02-11', this.config.sourceVip),
              ...providerAddress(ctx),
            },
          }
        : {}),
    });
    try {
      await applyPlan(hns, this.#mirror, plan.operations, { call: (op, ok) => this.#metrics.hnsCall(op, ok) });
    } catch (e) {
      this.#needInventory = true;
      this.#metrics.rollback(e instanceof UndoFailedError ? 'stale' : 'undone');
      this.#log.error('HNS sync failed; the operations already applied were undone and the next sync is a full one', {
        error: e instanceof Error ? e.message : String(e),
        revision: req.revision,
        operations: plan.operations.length,
      });
      throw new KpngError(ErrorCodes.SyncFailed, `HNS sync failed: ${e instanceof Error ? e.message : String(e)}`, {
        cause: e,
      });
    }
    for (const [key, service] of plan.claims) {
      const lb = this.#mirror.loadBalancers.get(key);
      if (lb !== undefined) this.#mirror.setLoadBalancer({ ...lb, service });
    }
    this.#needInventory = false;
    this.#metrics.loadBalancers(this.#mirror.loadBalancers.size);
    const dropped = [...renders.values()].reduce((n, r) => n + r.droppedEndpoints, 0);
    this.#log.info('synced HNS', {
      full,
      revision: req.revision,
      services: req.state.services.length,
      changed: full ? req.state.services.length : (updated?.size ?? 0),
      operations: plan.operations.length,
      loadBalancers: this.#mirror.loadBalancers.size,
      ...(plan.missingLocal > 0 ? { localEndpointsNotInHns: plan.missingLocal } : {}),
      ...(plan.conflicts > 0 ? { conflictingFrontends: plan.conflicts } : {}),
      ...(dropped > 0 ? { endpointsOnAnotherPort: dropped } : {}),
      ms: Math.round(performance.now() - started),
    });
  }

  /** Deletes every HNS load balancer (as upstream's cleanup does) and the remote endpoints of the network. */
  async cleanup(): Promise<void> {
    const hns = await this.#client();
    for (const lb of await hns.listLoadBalancers()) await hns.deleteLoadBalancer(lb.ID ?? '');
    const network = await hns.getNetworkByName(this.config.networkName);
    if (network?.ID !== undefined) {
      for (const ep of await hns.listEndpoints(network.ID)) {
        const ours =
          ((ep.Flags ?? 0) & 1) !== 0 ||
          (this.config.sourceVip !== undefined &&
            ep.IpConfigurations?.some((c) => c.IpAddress === this.config.sourceVip));
        if (ours) await hns.deleteEndpoint(ep.ID ?? '');
      }
    }
    this.#mirror = new HnsMirror();
    this.#needInventory = true;
  }

  async close(): Promise<void> {
    this.#hns?.close?.();
  }

  /** What the backend believes HNS holds (after the last successful sync). */
  mirror(): HnsMirror {
    return this.#mirror.clone();
  }

  async #client(): Promise<Hns> {
    if (this.#hns === undefined) {
      const { NativeHns } = await import('../hcn/native/native-hns.js');
      this.#hns = NativeHns.open();
    }
    return this.#hns as Hns;
  }

  async #loadNetwork(): Promise<NetworkInfo> {
    const hns = await this.#client();
    const network = await hns.getNetworkByName(this.config.networkName);
    if (network === undefined) {
      throw new KpngError(
        ErrorCodes.SyncFailed,
        `HNS network ${JSON.stringify(this.config.networkName)} not found: check --network-name and the CNI deployment`,
      );
    }
    const info = networkInfo(network);
    if (info.overlay && this.config.sourceVip === undefined) {
      throw new KpngError(
        ErrorCodes.InvalidConfig,
        `network ${info.name} is an overlay network: --source-vip is required`,
      );
    }
    this.#network = info;
    return info;
  }

  #context(state: NodeLocalState, network: NetworkInfo): RenderContext {
    const nodeIPs = this.#options.nodeIPs ?? nodeIPsOf(state);
    const hostMac =
      this.#options.hostMac ?? (network.overlay && nodeIPs.IPv4 !== undefined ? hostMacOf(nodeIPs.IPv4) : undefined);
    return {
      config: this.config,
      network,
      nodeIPs,
      ...(this.#gatewayId === undefined ? {} : { gatewayEndpointId: this.#gatewayId }),
      ...(hostMac === undefined ? {} : { hostMac }),
    };
  }
}

function providerAddress(ctx: RenderContext): { providerAddress?: string } {
  const family = ipFamilyOf(ctx.config.sourceVip ?? '') ?? 'IPv4';
  const pa = ctx.nodeIPs[family];
  return pa === undefined ? {} : { providerAddress: pa };
}
