import { familyOf, type IPFamily, type Service } from '../../kube/objects.js';

/** One way to reach the Service: a ClusterIP, or a NodePort on a given node address. */
export interface ServicePath {
  readonly path: 'ClusterIP' | 'NodePort';
  readonly family: IPFamily;
  readonly host: string;
  readonly port: number;
}

export interface PathOptions {
  /** The Service port to use; 0: the first TCP port. */
  readonly servicePort: number;
  /** Probe the NodePort on this node address too; '' : no. */
  readonly nodeIP: string;
  readonly ipFamily: IPFamily | undefined;
}

/** The addresses to probe for a Service, or an explanation of why there are none. */
export function servicePaths(service: Service, options: PathOptions): ServicePath[] | string {
  const ports = (service.spec?.ports ?? []).filter((p) => (p.protocol ?? 'TCP') === 'TCP');
  const port = options.servicePort === 0 ? ports[0] : ports.find((p) => p.port === options.servicePort);
  if (port?.port === undefined) {
    return options.servicePort === 0
      ? 'the Service has no TCP port'
      : `the Service has no TCP port ${options.servicePort}`;
  }
  const clusterIPs = service.spec?.clusterIPs ?? (service.spec?.clusterIP ? [service.spec.clusterIP] : []);
  const paths: ServicePath[] = [];
  for (const ip of clusterIPs) {
    const family = familyOf(ip);
    if (family === undefined || (options.ipFamily !== undefined && family !== options.ipFamily)) continue;
    paths.push({ path: 'ClusterIP', family, host: ip, port: port.port });
  }
  if (options.nodeIP !== '') {
    const family = familyOf(options.nodeIP);
    if (port.nodePort === undefined) return `-NodeIP is set but Service port ${port.port} has no nodePort`;
    if (family !== undefined) paths.push({ path: 'NodePort', family, host: options.nodeIP, port: port.nodePort });
  }
  if (paths.length === 0) return 'the Service has no cluster IP to probe (headless, or none in the requested family)';
  return paths;
}
