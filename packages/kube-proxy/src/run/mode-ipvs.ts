/** ipvs mode: `@kpng/ipvs`, loaded only when this mode runs or its objects are removed. */
import { IpvsBackend } from '@kpng/ipvs';
import { ipvsBackendConfig } from './ipvs-options.js';
import type { ProxyMode } from './modes.js';

export const mode: ProxyMode = {
  create(config, ctx) {
    const { config: ipvsConfig, warnings } = ipvsBackendConfig(config);
    const backend = new IpvsBackend({
      config: ipvsConfig,
      ...(ctx.netns !== undefined ? { netns: ctx.netns } : {}),
      ...(ctx.writeTimeoutMs !== undefined ? { writeTimeoutMs: ctx.writeTimeoutMs } : {}),
      ...(ctx.registry !== undefined ? { metrics: ctx.registry } : {}),
    });
    return { backend, warnings };
  },
  async cleanup(config, ctx) {
    if ((ctx.platform ?? process.platform) === 'win32') return []; // no IPVS on Windows
    // Virtual servers (outside ipvs.excludeCIDRs), kube-ipvs0, and the `ip`/`ip6 kpng-ipvs` tables.
    const backend = new IpvsBackend({
      config: ipvsBackendConfig(config).config,
      ...(ctx.netns !== undefined ? { netns: ctx.netns } : {}),
    });
    try {
      await backend.cleanup();
    } finally {
      await backend.close();
    }
    return ['ipvs virtual servers', 'kube-ipvs0', 'ip kpng-ipvs', 'ip6 kpng-ipvs'];
  },
};
