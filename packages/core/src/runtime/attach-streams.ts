import type { GlobalSnapshot } from '../model/global-model.js';
import type { NodeLocalState } from '../nodeview/types.js';
import type { CoreMetrics } from '../metrics/core-metrics.js';
import { StateHub } from '../stream/hub.js';
import type { StreamObserver } from '../stream/server/server-session.js';
import type { StreamServer } from '../stream/server/stream-server.js';
import type { StreamTls } from '../stream/tls.js';
import { formatListenAddress, type ListenAddress } from '../util/address.js';
import type { NodeView } from './node-view.js';

export interface StreamListenOptions {
  /** Node-local stream (`kpng.localnet.v1`). */
  readonly local?: ListenAddress;
  /** Global model (`kpng.global.v1`) for node agents; a non-loopback address needs `globalTls` (central core). */
  readonly global?: ListenAddress;
  /** Mutual TLS for the global stream. */
  readonly globalTls?: StreamTls;
}

/** Serves the core's states over gRPC: returns an `attach` step for `startPipeline`. */
export function attachStreamServers(listen: StreamListenOptions) {
  return async (core: NodeView, metrics: CoreMetrics): Promise<{ close(): Promise<void> }> => {
    const servers: StreamServer[] = [];
    const hubs: StateHub<unknown>[] = [];
    const observer = streamMetrics(metrics);
    // gRPC (its resident memory: docs/PERFORMANCE.md) is loaded only by a program that serves a stream.
    if (listen.local) {
      const { serveLocalState } = await import('../stream/server/local-server.js');
      const hub = new StateHub<NodeLocalState>();
      core.addLocalConsumer({ publish: (s, c, r) => metrics.streamRevision(hub.publish(s, c, r)) });
      servers.push(await serveLocalState({ hub, address: formatListenAddress(listen.local), observer }));
      hubs.push(hub as StateHub<unknown>);
    }
    if (listen.global) {
      const { serveGlobalState } = await import('../stream/server/global-server.js');
      const hub = new StateHub<GlobalSnapshot>();
      core.addGlobalConsumer({ publish: (s, c, r) => hub.publish(s, c, r) });
      const address = formatListenAddress(listen.global);
      servers.push(
        await serveGlobalState({ hub, address, observer, ...(listen.globalTls ? { tls: listen.globalTls } : {}) }),
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
    streamRefused: (api, reason) => metrics.streamRefused(api, reason),
  };
}
