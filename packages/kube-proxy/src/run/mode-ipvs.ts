/** ipvs mode: `@kpng/ipvs`, loaded only when this mode runs or its objects are removed. */
import { explainIpvs, IpvsBackend, type backend as ipvsModule } from '@kpng/ipvs';
import { ipvsBackendConfig } from './ipvs-options.js';
import type { KubeProxyConfiguration } from '../config/types.js';
import type { ModeContext, ProxyMode } from './modes.js';

export const mode: ProxyMode = {
  backendOptions(config, ctx) {
    const { config: ipvs, warnings } = ipvsBackendConfig(config);
    const options: Parameters<typeof ipvsModule.create>[0] = {
      ipvs,
      ...(ctx.writeTimeoutMs !== undefined ? { writeTimeoutMs: ctx.writeTimeoutMs } : {}),
    };
    return { options, warnings };
  },
  async prepare(config, ctx) {
    // IPVS loaded, its sysctls (each alone, judged as upstream's) and timeouts: the backend's own set-up step.
    await withBackend(config, ctx, (backend) => backend.prepareNode());
  },
  // The Service from the API server (IPVS keeps no names), then its virtual servers, real servers and filter elements.
  explain: (_config, service, ctx) => explainIpvs(service, ctx),
  async cleanup(config, ctx) {
    if ((ctx.platform ?? process.platform) === 'win32') return []; // no IPVS on Windows
    // Virtual servers (outside ipvs.excludeCIDRs), kube-ipvs0, and the `ip`/`ip6 kpng-ipvs` tables.
    await withBackend(config, ctx, (backend) => backend.cleanup());
    return ['ipvs virtual servers', 'kube-ipvs0', 'ip kpng-ipvs', 'ip6 kpng-ipvs'];
  },
};

/** A backend for one step outside a running proxy, closed after it. */
async function withBackend(
  config: KubeProxyConfiguration,
  ctx: ModeContext,
  step: (backend: IpvsBackend) => Promise<unknown>,
): Promise<void> {
  const backend = new IpvsBackend({
    config: ipvsBackendConfig(config).config,
    ...(ctx.netns !== undefined ? { netns: ctx.netns } : {}),
  });
  try {
    await step(backend);
  } finally {
    await backend.close();
  }
}
