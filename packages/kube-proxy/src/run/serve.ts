/**
 * Running the proxy: kube source (kubeconfig / --master, this node's name), the mode's backend in
 * process, metrics on metricsBindAddress (with /proxyMode and /configz), health on
 * healthzBindAddress, sync periods from the mode's section; with `enforceNetworkPolicy` (kpng's
 * `--with-netpol`) the NetworkPolicy enforcer beside the mode's backend. Returns when `signal` aborts (0) or the
 * source fails for good (1).
 */
import { hostname } from 'node:os';
import { nodeName as toNodeName, type Backend, type Logger } from '@kpng/core';
import { parseDurationMs } from '@kpng/kit';
import {
  healthCheckAddressesFor,
  programHealthCheckAddresses,
  KubeEventRecorder,
  KubeSource,
  loadKubeConfig,
  registerKubeWatchMetrics,
  registerRestClientMetrics,
  runProxy,
  type RunningProxy,
} from '@kpng/core/runtime';
import { Registry } from 'prom-client';
import type { Completed } from '../config/complete.js';
import { encodeConfiguration } from '../config/encode.js';
import { GROUP, type KubeProxyConfiguration } from '../config/types.js';
import { BindError, serverAddress } from './bind-check.js';
import { registerBuildInfo } from './build-info.js';
import { ConfigChangedError, watchConfigFile } from './config-watch.js';
import { createModeBackend } from './mode-backend.js';
import { cleaningAfterFirstSync, cleanupOtherModes } from './platform-cleanup.js';

/** kube-proxy's upper bound between full resyncs (nftables and iptables proxiers). */
export const FULL_SYNC_PERIOD_MS = 3_600_000;

export interface ServeContext {
  readonly env: NodeJS.ProcessEnv;
  readonly log: Logger;
  readonly signal: AbortSignal;
  /** The version reported (`v0.1.0`, or what `--version=vX.Y.Z` said). */
  readonly version: string;
  /** Called once the proxy is running (tests read the servers' addresses here). */
  readonly onStarted?: (running: RunningProxy) => void;
  /** The kernel's `nf_conntrack_tcp_be_liberal` is set (read by main after the conntrack sysctls). */
  readonly tcpBeLiberal?: boolean;
}

export async function serve(completed: Completed, ctx: ServeContext): Promise<number> {
  const { config } = completed;
  const { log } = ctx;
  const nodeName = nodeNameOf(config);
  const netns = ctx.env['KPNG_NETNS'] || undefined;
  const kubeConfig = loadKubeConfig({
    ...(config.clientConnection.kubeconfig !== '' ? { kubeconfigPath: config.clientConnection.kubeconfig } : {}),
    ...(completed.master !== undefined ? { server: completed.master } : {}),
  });
  const registry = new Registry();
  registerBuildInfo(registry, ctx.version);
  const writeTimeout = ctx.env['KPNG_WRITE_TIMEOUT'] || undefined;
  // The one backend package this process needs, imported now through its BackendModule.
  const { backend: modeBackend, warnings } = await createModeBackend(config, {
    nodeName,
    ...(netns !== undefined ? { netns } : {}),
    // kube-proxy has no such setting: the environment, as KPNG_NETNS (tests use a short one).
    ...(writeTimeout !== undefined ? { writeTimeoutMs: parseDurationMs(writeTimeout) } : {}),
    registry,
    tcpBeLiberal: ctx.tcpBeLiberal ?? false,
  });
  for (const warning of warnings) log.warn(warning);
  // kpng's extension: the NetworkPolicy enforcer beside the mode's backend, one sync loop (its
  // package loaded only when enabled); the source then also watches Pods, Namespaces, NetworkPolicies.
  const policy = config.enforceNetworkPolicy;
  const served = policy ? await withNetpol(modeBackend, registry, netns) : modeBackend;
  // The other modes' leftovers go once this mode's first sync is in place (platform-cleanup.ts).
  const backend = cleaningAfterFirstSync(served, () =>
    cleanupOtherModes(config, netns !== undefined ? { netns } : {}, log, modeBackend.families),
  );

  // Upstream's EventBroadcaster (events.k8s.io/v1), reporting as `kube-proxy`; Node events name the
  // Node by name (upstream's NodeRef: kind Node, uid = the name).
  const events = new KubeEventRecorder({ kubeConfig, component: 'kube-proxy', log });
  const nodeRef = { kind: 'Node', name: nodeName, uid: nodeName };
  const hardFail = config.bindAddressHardFail;
  // With bindAddressHardFail, upstream records why it stops on the Node before exiting.
  const bindOrReport = async (what: 'metrics' | 'healthz', address: string) => {
    try {
      return await serverAddress(what, address, hardFail, log);
    } catch (e) {
      if (!(e instanceof BindError)) throw e;
      events.record({
        regarding: nodeRef,
        type: 'Warning',
        reason: what === 'healthz' ? 'FailedToStartProxierHealthcheck' : 'FailedToStartMetricServer',
        action: 'StartKubeProxy',
        note: e.message,
      });
      await events.flush();
      throw e;
    }
  };
  const metricsBindAddress = await bindOrReport('metrics', config.metricsBindAddress);
  const healthzBindAddress = await bindOrReport('healthz', config.healthzBindAddress);
  const section = sectionOf(config);
  log.info('starting kube-proxy (kpng)', {
    version: ctx.version,
    mode: config.mode,
    ...(policy ? { networkPolicy: 'enforced (@kpng/netpol)' } : {}),
    node: nodeName,
    server: kubeConfig.getCurrentCluster()?.server ?? '(unknown)',
    ...(netns !== undefined ? { netns } : {}),
  });
  // Upstream exits when its --config file changes; the DaemonSet restarts it with the new file.
  const stopping = new AbortController();
  const forward = () => stopping.abort();
  ctx.signal.addEventListener('abort', forward, { once: true });
  if (ctx.signal.aborted) stopping.abort();
  let configChanged = false;
  const configWatch =
    completed.configFile === undefined
      ? undefined
      : watchConfigFile(completed.configFile, () => {
          configChanged = true;
          log.error('the configuration file changed; exiting so that kube-proxy restarts with it', {
            file: completed.configFile,
          });
          stopping.abort();
        });
  const kpng = await runProxy({
    nodeName: toNodeName(nodeName),
    source: new KubeSource({
      kubeConfig,
      nodeName,
      restClientMetrics: registerRestClientMetrics(registry),
      watchMetrics: registerKubeWatchMetrics(registry),
      // client-go's throttle on every request, as upstream's client (QPS/Burst from clientConnection).
      rateLimit: { qps: config.clientConnection.qps, burst: config.clientConnection.burst },
      ...(config.serviceProxyName !== '' ? { serviceProxyName: config.serviceProxyName } : {}),
      ...(policy ? { policy: true } : {}),
      events,
    }),
    backend,
    ...(policy ? { policy: true } : {}),
    events,
    ...(metricsBindAddress ? { metricsBindAddress } : {}),
    ...(healthzBindAddress ? { healthzBindAddress } : {}),
    // Upstream opens health-check node ports on the nodePortAddresses (nftables: the primary IPs).
    // With KPNG_NETNS those are another namespace's addresses, which this process's sockets cannot
    // bind (EADDRNOTAVAIL at every sync): loopback, as every kpng program with --netns.
    healthCheckAddresses:
      netns !== undefined ? programHealthCheckAddresses(netns)! : healthCheckAddressesFor(config.nodePortAddresses),
    minSyncPeriodMs: section.minSyncPeriod,
    syncPeriodMs: section.syncPeriod,
    fullSyncPeriodMs: FULL_SYNC_PERIOD_MS,
    // Upstream's informer resync period: every object through the handlers again.
    resyncPeriodMs: config.configSyncPeriod,
    proxyMode: config.mode,
    configz: { [GROUP]: encodeConfiguration(config) },
    registry,
    signal: stopping.signal,
  }).catch((e: unknown) => {
    configWatch?.close();
    throw e;
  });
  // Upstream's birthCry: a Normal `Starting` Event on the Node once the proxy runs.
  events.record({ regarding: nodeRef, type: 'Normal', reason: 'Starting', action: 'StartKubeProxy', note: '' });
  ctx.onStarted?.(kpng);

  const outcome = await kpng.done.then(
    () => (configChanged ? 'configuration file changed' : stopping.signal.aborted ? 'stopped' : 'source ended'),
    () => 'source failed' as const,
  );
  log.info('stopping kube-proxy (kpng)', { reason: outcome });
  configWatch?.close();
  ctx.signal.removeEventListener('abort', forward);
  await kpng.stop();
  events.close();
  if (configChanged) throw new ConfigChangedError();
  return outcome === 'source failed' ? 1 : 0;
}

/** `backend` and `@kpng/netpol`'s enforcer in one sync loop (`besideBackend`: failures kept apart). */
async function withNetpol(backend: Backend, registry: Registry, netns: string | undefined): Promise<Backend> {
  const { besideBackend, NetpolBackend } = await import('@kpng/netpol');
  return besideBackend(backend, new NetpolBackend({ registry, ...(netns !== undefined ? { netns } : {}) }));
}

/** `nodeutil.GetHostname`: the override, else the hostname, trimmed and lower-cased. */
export function nodeNameOf(config: KubeProxyConfiguration, host: () => string = hostname): string {
  return (config.hostnameOverride.trim() || host()).trim().toLowerCase();
}

function sectionOf(config: KubeProxyConfiguration): { syncPeriod: number; minSyncPeriod: number } {
  return config.mode === 'ipvs' ? config.ipvs : config.mode === 'nftables' ? config.nftables : config.iptables;
}
