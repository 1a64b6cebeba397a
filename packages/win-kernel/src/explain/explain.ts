/**
 * `explain` for the Windows backend: the Service from the API server (`ExplainContext.lookupService`:
 * HNS load balancers carry no Service names), then, read once and never written, HNS's load
 * balancers and the network's endpoints through the `Hns` seam, selected by `select.ts`. HNS exists
 * on Windows only: anywhere else this says so and reads nothing.
 */
import type { ExplainContext, ExplainReport, ServiceRef } from '@kpng/core';
import type { Hns } from '../hcn/hns.js';
import type { HostComputeEndpoint } from '../hcn/schema.js';
import { resolveConfig, type WinKernelConfigInput } from '../render/config.js';
import { hnsReport, selectLoadBalancers } from './select.js';

export interface WinKernelExplainOptions {
  /** The HNS seam. Default: computenetwork.dll (Windows only), opened for this read and closed after it. */
  readonly hns?: Hns;
  /** Default `process.platform`: without an `hns`, anything but win32 has no HNS to read. */
  readonly platform?: NodeJS.Platform;
}

const firstLine = (e: unknown): string => ((e as Error).message ?? String(e)).split('\n')[0] ?? '';

export async function explainWinKernel(
  input: WinKernelConfigInput,
  service: ServiceRef,
  ctx: ExplainContext,
  options: WinKernelExplainOptions = {},
): Promise<ExplainReport[]> {
  const platform = options.platform ?? process.platform;
  if (options.hns === undefined && platform !== 'win32') {
    throw new Error(
      `HNS (the Windows Host Compute Network service) does not exist on ${platform}: kernelspace mode ` +
        `programs HNS load balancers on Windows nodes only; run explain on the Windows node`,
    );
  }
  const config = resolveConfig(input, {});
  if (ctx.lookupService === undefined)
    throw new Error(
      `HNS keeps no Service names: explain needs the API server to find ${service.namespace}/${service.name}`,
    );
  const model = await ctx.lookupService();
  let hns = options.hns;
  const opened = hns === undefined;
  try {
    if (hns === undefined) {
      const { NativeHns } = await import('../hcn/native/native-hns.js');
      hns = NativeHns.open();
    }
    const network = await hns.getNetworkByName(config.networkName);
    let source = `HNS network ${config.networkName}`;
    let endpoints: HostComputeEndpoint[] = [];
    if (network?.ID === undefined) source += ' (not found: endpoints shown by ID)';
    else {
      source += ` (${network.Type ?? 'unknown type'})`;
      endpoints = await hns.listEndpoints(network.ID);
    }
    if (model.preserveDestination === true) source += ', Service annotated preserve-destination';
    const selected = selectLoadBalancers(model, await hns.listLoadBalancers(), config.healthzPort);
    return [hnsReport(source, selected, endpoints)];
  } catch (e) {
    throw new Error(`HNS not readable: ${firstLine(e)}`, { cause: e });
  } finally {
    if (opened) hns?.close?.();
  }
}
