/**
 * @kpng/win-kernel: the Windows HNS backend. Every export is listed by name; this file is the
 * contract. The HCN layer alone is `@kpng/win-kernel/hcn`; the fake HNS and its harness are
 * `@kpng/win-kernel/testing`.
 */

// The backend core's sync loop drives
export { WinKernelBackend } from '../backend/win-kernel-backend.js';
export type { WinKernelBackendOptions } from '../backend/options.js';
/** The backend as every program loads it (`kpng-win-kernel`, `kpng --backend win-kernel`): its flags and factory. */
export { backend, parseWinKernelFlags } from '../cli/backend-module.js';

// Configuration (kube-proxy's winkernel section)
export { resolveConfig, type WinKernelConfig, type WinKernelConfigInput } from '../render/config.js';

// Rendering and diffing, as data
export {
  renderService,
  renderState,
  lbKey,
  type LoadBalancerIntent,
  type RemoteEndpointIntent,
  type RenderContext,
  type ServiceRender,
} from '../render/intents.js';
export { planSync, type HnsOperation, type SyncPlan } from '../backend/plan.js';

// `explain`: one Service's HNS load balancers, read back through the HNS seam
export { explainWinKernel, type WinKernelExplainOptions } from '../explain/explain.js';
export { HnsMirror } from '../backend/mirror.js';

// Metrics and the HNS seam
export { createWinKernelMetrics, NO_METRICS, type WinKernelMetrics } from '../backend/metrics.js';
// (NativeHns, which loads koffi, is `@kpng/win-kernel/hcn`: importing this entry loads no FFI.)
export { HcnError, isNotFound } from '../hcn/errors.js';
export type { Hns } from '../hcn/hns.js';
