/**
 * The Service `explain` asks about, as the API server has it now, for backends whose kernel objects
 * carry no Service names (IPVS virtual servers, BPF map keys): one GET of the Service with the
 * proxy's own client connection (kubeconfig, `--master`, or in-cluster), through the model's own
 * converter, so the addresses and ports are exactly those the proxy would render.
 */
import type { ServiceModel } from '../model/types.js';
import { convertService } from '../watch/convert/service.js';
import { apiRequest, readBody, statusError } from '../watch/kube/api-request.js';
import { loadKubeConfig, type KubeConfigLocation } from '../watch/kube/load-kubeconfig.js';
import type { ServiceRef } from './explain.js';

/** A Service object larger than this is refused (etcd's object limit is ~1.5 MiB). */
export const MAX_SERVICE_BYTES = 3 * 1024 * 1024;
/** The whole lookup's deadline: a command an operator waits on (the deadline is the behaviour). */
export const SERVICE_LOOKUP_TIMEOUT_MS = 30_000;

/**
 * The Service now, validated and converted as the model converts it. Throws a clear error when
 * the API server cannot be reached or refuses, the Service does not exist, fails validation, or is
 * one the proxy programs nothing for (headless, ExternalName).
 */
export async function fetchService(
  location: KubeConfigLocation,
  ref: ServiceRef,
  timeoutMs = SERVICE_LOOKUP_TIMEOUT_MS,
): Promise<ServiceModel> {
  const kc = loadKubeConfig(location);
  const path = `/api/v1/namespaces/${encodeURIComponent(ref.namespace)}/services/${encodeURIComponent(ref.name)}`;
  const signal = AbortSignal.timeout(timeoutMs);
  const { url, res } = await apiRequest(kc, 'GET', path, {}, signal);
  if (res.statusCode === 404) {
    res.resume();
    throw new Error(`no Service ${ref.namespace}/${ref.name} in the API server`);
  }
  if (res.statusCode !== 200) throw await statusError('GET', url, res);
  let body: unknown;
  try {
    body = JSON.parse(await readBody(res, MAX_SERVICE_BYTES));
  } catch (e) {
    throw new Error(`GET ${url.pathname}: ${(e as Error).message}`);
  }
  const converted = convertService(body);
  if (!converted.ok) {
    throw new Error(`Service ${ref.namespace}/${ref.name} is invalid: ${converted.errors.slice(0, 3).join('; ')}`);
  }
  if (converted.value === null) {
    throw new Error(
      `Service ${ref.namespace}/${ref.name} is headless or ExternalName: no proxy programs anything for it`,
    );
  }
  const model = converted.value;
  if (model.namespace !== ref.namespace || model.name !== ref.name) {
    throw new Error(`the API server answered ${model.namespace}/${model.name} for ${ref.namespace}/${ref.name}`);
  }
  return model;
}
