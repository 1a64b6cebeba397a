/** Windows: HNS load balancers through computenetwork.dll (`@kpng/win-kernel`), loaded only in this mode. */
import { explainWinKernel, WinKernelBackend, type backend as winKernelModule } from '@kpng/win-kernel';
import { kernelspaceBackendOptions } from './kernelspace-options.js';
import type { ProxyMode } from './modes.js';

export const mode: ProxyMode = {
  backendOptions(config) {
    const { options, warnings } = kernelspaceBackendOptions(config);
    const moduleOptions: Parameters<typeof winKernelModule.create>[0] = options;
    return { options: moduleOptions, warnings };
  },
  // The Service from the API server (HNS keeps no names), then its HNS load balancers; Windows only.
  explain: (config, service, ctx) => explainWinKernel(kernelspaceBackendOptions(config).options, service, ctx),
  async cleanup(config, ctx) {
    if ((ctx.platform ?? process.platform) !== 'win32') return []; // HNS exists on Windows only
    // As upstream's CleanupLeftovers: every HNS load balancer, plus the remote endpoints kpng created.
    const { options } = kernelspaceBackendOptions(config);
    await new WinKernelBackend(options).cleanup();
    return ['HNS load balancers', `remote endpoints of HNS network ${options.networkName ?? ''}`];
  },
};
