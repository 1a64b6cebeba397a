/**
 * Which objects this proxy consumes (semantics 2.1). Services and EndpointSlices carrying
 * `service.kubernetes.io/service-proxy-name` belong to another proxy unless the name is ours, and
 * headless ones never reach a proxy. The same selector goes on both informers, as kube-proxy does.
 */

export const SERVICE_PROXY_NAME_LABEL = 'service.kubernetes.io/service-proxy-name';
export const HEADLESS_LABEL = 'service.kubernetes.io/headless';

export function proxyLabelSelector(serviceProxyName?: string): string {
  const owner = serviceProxyName ? `${SERVICE_PROXY_NAME_LABEL}=${serviceProxyName}` : `!${SERVICE_PROXY_NAME_LABEL}`;
  return `${owner},!${HEADLESS_LABEL}`;
}

/** Only this node's Node object, or every node's (undefined) in central-core mode. */
export function nodeFieldSelector(nodeName: string | undefined): string | undefined {
  return nodeName === undefined ? undefined : `metadata.name=${nodeName}`;
}
