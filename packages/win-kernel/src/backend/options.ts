import type { IPFamily, Logger } from '@kpng/core';
import type { Registry } from 'prom-client';
import type { Hns } from '../hcn/hns.js';
import type { WinKernelConfigInput } from '../render/config.js';
import type { WinKernelMetrics } from './metrics.js';

export interface WinKernelBackendOptions extends WinKernelConfigInput {
  /** The HNS seam. Default: computenetwork.dll through koffi (Windows only), opened in `setup()`. */
  readonly hns?: Hns;
  /** Overlay: the host's MAC address. Default: the MAC of the interface holding the node IP. */
  readonly hostMac?: string;
  /** This node's IP per family. Default: the node's addresses from core's state. */
  readonly nodeIPs?: Readonly<Partial<Record<IPFamily, string>>>;
  /** A WinKernelMetrics, or a prom-client Registry to register the backend's metrics on. */
  readonly metrics?: WinKernelMetrics | Registry;
  readonly log?: Logger;
}
