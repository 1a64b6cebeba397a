import type { KubeConfig } from '@kubernetes/client-node';
import { apiGet, statusError } from './api-request.js';
import type { RequestRateLimiter } from './request-rate-limiter.js';

/** Where ServiceCIDRs live, newest first: GA in v1.33 (networking.k8s.io/v1), beta before. */
export const SERVICE_CIDR_PATHS = [
  '/apis/networking.k8s.io/v1/servicecidrs',
  '/apis/networking.k8s.io/v1beta1/servicecidrs',
] as const;

/**
 * The ServiceCIDR collection this API server serves, or undefined when it serves none (404 for
 * every version: an older cluster, or the MultiCIDRServiceAllocator gate off). Any other answer
 * (403 without RBAC for servicecidrs, 5xx, no answer) is thrown for the caller to report or retry.
 */
export async function servedServiceCIDRPath(
  kc: KubeConfig,
  signal: AbortSignal,
  limiter?: RequestRateLimiter,
): Promise<string | undefined> {
  for (const path of SERVICE_CIDR_PATHS) {
    const { url, res } = await apiGet(kc, path, { limit: '1' }, signal, limiter);
    if (res.statusCode === 200) {
      res.resume();
      return path;
    }
    if (res.statusCode !== 404) throw await statusError('LIST', url, res);
    res.resume();
  }
  return undefined;
}
