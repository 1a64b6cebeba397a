import type { GlobalSnapshot } from '../model/global-model.js';
import type { NodeLocalState } from '../nodeview/types.js';
import type { CoreMetrics } from '../metrics/core-metrics.js';
import { StateHub } from '../stream/hub.js';
import { serveLocalState } from '../stream/server/local-server.js';
import { serveGlobalState } from '../stream/server/global-server.js';
import type { StreamObserver } from '../stream/server/server-session.js';
import type { StreamServer } from '../stream/server/stream-server.js';
import { formatListenAddress, isLoopbackHost, type ListenAddress } from '../util/address.js';
import type { Core } from './core.js';

export interface StreamListenOptions {
  /** Node-local stream (`kpng.localnet.v1`). */
  readonly local?: ListenAddress;
  /** Global model (`kpng.global.v1`) for node agents; may be a non-loopback address (central core). */
  readonly global?: ListenAddress;
}

/** Serves the core's states over gRPC: returns an `attach` step for `runKpng`. */
export function attachStreamServers(listen: StreamListenOptions) {
  return async (core: Core, metrics: CoreMetrics): Promise<{ close(): Promise<void> }> => {
    const servers: StreamServer[] = [];
    const hubs: StateHub<unknown>[] = [];
    const observer = streamMetrics(metrics);
    if (listen.local) {
      const hub = new StateHub<NodeLocalState>();
      core.addLocalConsumer({ publish: (s, c, r) => metrics.streamRevision(hub.publish(s, c, r)) });
      servers.push(await serveLocalState({ hub, address: formatListenAddress(listen.local), observer }));
      hubs.push(hub as StateHub<unknown>);
    }
    if (listen.global) {
      const hub = new StateHub<GlobalSnapshot>();
      core.addGlobalConsumer({ publish: (s, c, r) => hub.publish(s, c, r) });
      const remote = listen.global.kind === 'tcp' && !isLoopbackHost(listen.global.host);
      servers.push(
        await serveGlobalState({ hub, address: formatListenAddress(listen.global), allowRemote: remote, observer }),
      );
      hubs.push(hub as StateHub<unknown>);
    }
    return {
      async close() {
        for (const h of hubs) h.close();
        await Promise.all(servers.map((s) => s.close()));
      },
    };
  };
}

function streamMetrics(metrics: CoreMetrics): StreamObserver {
  const clients = new Map<string, number>();
  const bump = (api: string, by: number) => {
    const n = (clients.get(api) ?? 0) + by;
    clients.set(api, n);
    metrics.streamClients(api, n);
  };
  return {
    clientConnected: (api) => bump(api, 1),
    clientDisconnected: (api) => bump(api, -1),
    stateSent: (api) => metrics.streamStateSent(api),
  };
}
