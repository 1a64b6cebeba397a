import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Registry } from 'prom-client';
import { registerKubeWatchMetrics } from '../metrics/kube-watch.js';
import { registerRestClientMetrics } from '../metrics/rest-client.js';
import type { Source } from '../watch/source.js';
import { FileSource } from '../watch/file/index.js';
import { KubeSource, loadKubeConfig } from '../watch/kube/index.js';
import { ApiSource } from '../watch/api/index.js';
import { defaultNodeName, UsageError, type ProgramOptions } from './program-options.js';
import type { StreamTls } from '../stream/tls.js';
import { readFlagTls } from './stream-tls-flags.js';

export const EXAMPLE_NODE = 'node-a';
const SERVICE_ACCOUNT_TOKEN = '/var/run/secrets/kubernetes.io/serviceaccount/token';

export interface ChosenSource {
  readonly source: Source;
  /** One line for the start-up log: where the state comes from. */
  readonly description: string;
  /** The node name to use when none was given (the example cluster's node). */
  readonly defaultNodeName?: string;
}

/** Is a cluster configured the way kube-proxy would find one? */
export function clusterConfigured(opts: ProgramOptions, env: NodeJS.ProcessEnv, exists = existsSync): boolean {
  if (opts.kubeconfig !== undefined || opts.master !== undefined) return true;
  if (env['KUBECONFIG']) return true;
  if (exists(join(env['HOME'] ?? homedir(), '.kube', 'config'))) return true;
  return Boolean(env['KUBERNETES_SERVICE_HOST']) && exists(SERVICE_ACCOUNT_TOKEN);
}

/** The example cluster: beside the package when installed from npm, else at the repository root. */
export function exampleClusterPath(exists = existsSync): string {
  const here = dirname(fileURLToPath(import.meta.url));
  const candidates = [
    join(here, '..', '..', 'examples', 'cluster.yaml'),
    join(here, '..', '..', '..', '..', 'examples', 'cluster.yaml'),
  ];
  const found = candidates.find((p) => exists(p));
  if (!found)
    throw new UsageError(
      `no cluster configured and the example cluster is missing (looked in ${candidates.join(', ')})`,
    );
  return found;
}

/**
 * The source for an in-process core (`--connect` has none). Without a configured cluster, the example
 * cluster when `exampleFallback` (a program that touches no kernel), else the API server as kube-proxy
 * would look for it (and a clear error when there is none).
 */
export function chooseSource(
  opts: ProgramOptions,
  nodeName: string | undefined,
  registry: Registry,
  env: NodeJS.ProcessEnv = process.env,
  exampleFallback = true,
  apiTls?: StreamTls,
  policy = false,
): ChosenSource {
  const kind = opts.source ?? (clusterConfigured(opts, env) || !exampleFallback ? 'kube' : undefined);
  if (policy && kind !== 'kube') {
    throw new UsageError(
      'NetworkPolicy enforcement needs the API server as source (Pods, Namespaces, NetworkPolicies)',
    );
  }
  switch (kind) {
    case 'connect':
      throw new UsageError('--connect has no in-process source');
    case 'file':
      return { source: new FileSource({ path: opts.file ?? exampleClusterPath() }), description: `file ${opts.file}` };
    case 'api':
      return {
        source: new ApiSource({
          address: opts.api!,
          // The node this agent serves, as a kpng agent names itself anywhere (a central core with
          // mutual TLS checks it against the client certificate).
          nodeName: nodeName ?? defaultNodeName(),
          ...(apiTls && opts.apiTls
            ? { watch: { tls: apiTls, reloadTls: async () => (await readFlagTls(opts.apiTls))! } }
            : {}),
        }),
        description: `central core at ${opts.api}${apiTls ? ' (mutual TLS)' : ''}`,
      };
    case 'kube': {
      const kubeConfig = loadKubeConfig({
        ...(opts.kubeconfig !== undefined ? { kubeconfigPath: opts.kubeconfig } : {}),
        ...(opts.master !== undefined ? { server: opts.master } : {}),
      });
      const server = kubeConfig.getCurrentCluster()?.server ?? '(unknown)';
      return {
        source: new KubeSource({
          kubeConfig,
          ...(nodeName !== undefined ? { nodeName } : {}),
          ...(opts.globalListen !== undefined && nodeName === undefined ? { allNodes: true } : {}),
          ...(opts.serviceProxyName !== undefined ? { serviceProxyName: opts.serviceProxyName } : {}),
          restClientMetrics: registerRestClientMetrics(registry),
          watchMetrics: registerKubeWatchMetrics(registry),
          ...(policy ? { policy: true } : {}),
        }),
        description: `API server ${server}`,
      };
    }
    case undefined: {
      const path = exampleClusterPath();
      return {
        source: new FileSource({ path }),
        description: `no cluster configured: the example cluster ${path}`,
        defaultNodeName: EXAMPLE_NODE,
      };
    }
  }
}
