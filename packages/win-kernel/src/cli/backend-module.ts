/**
 * The Windows backend as every kpng program loads it: `kpng-win-kernel`, `kpng --backend
 * win-kernel`, and (with kube-proxy's winkernel settings mapped onto the same options) the compat
 * kube-proxy in `kernelspace` mode. Flags carry upstream kube-proxy's Windows names.
 */
import { defineBackend, UsageError, type FlagValues, type IPFamily } from '@kpng/core';
import { WinKernelBackend } from '../backend/win-kernel-backend.js';
import { explainWinKernel } from '../explain/explain.js';
import { resolveConfig, type WinKernelConfigInput } from '../render/config.js';

const csv = (text: string | undefined): string[] =>
  text === undefined || text.trim() === ''
    ? []
    : text
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
const text = (values: FlagValues, name: string): string | undefined => values[name] as string | undefined;

/** The backend's own flags to its configuration; every problem is a UsageError naming the flag. */
export function parseWinKernelFlags(values: FlagValues, env: NodeJS.ProcessEnv = process.env): WinKernelConfigInput {
  const families = csv(text(values, 'ip-families'));
  if (families.some((f) => f !== 'IPv4' && f !== 'IPv6')) throw new UsageError('--ip-families takes IPv4, IPv6');
  const port = text(values, 'healthz-port');
  const networkName = text(values, 'network-name') ?? env['KUBE_NETWORK'];
  const sourceVip = text(values, 'source-vip');
  const root = text(values, 'root-hnsendpoint-name');
  const input: WinKernelConfigInput = {
    ...(networkName === undefined ? {} : { networkName }),
    ...(sourceVip === undefined ? {} : { sourceVip }),
    enableDSR: values['enable-dsr'] === true,
    ...(root === undefined ? {} : { rootHnsEndpointName: root }),
    forwardHealthCheckVip: values['forward-healthcheck-vip'] === true,
    ...(port === undefined ? {} : { healthzPort: Number(port) }),
    ...(families.length > 0 ? { families: families as IPFamily[] } : {}),
  };
  try {
    resolveConfig(input, {});
  } catch (e) {
    const message = (e as Error).message.replace(
      'the HNS network name is required: --network-name or $KUBE_NETWORK',
      '--network-name is required (or $KUBE_NETWORK)',
    );
    throw new UsageError(message.replace('invalid healthz port', '--healthz-port: invalid port'));
  }
  return input;
}

export const backend = defineBackend<WinKernelConfigInput>({
  name: 'win-kernel',
  program: 'kpng-win-kernel',
  proxyMode: 'kernelspace',
  summary: 'programs Windows HNS load balancers (Host Compute Network API, computenetwork.dll)',
  flags: {
    'network-name': { type: 'string', value: 'NAME', help: 'the HNS network of the pods', default: '$KUBE_NETWORK' },
    'source-vip': {
      type: 'string',
      value: 'IP',
      help: 'overlay networks: the source VIP of this node (required there)',
    },
    'enable-dsr': { type: 'boolean', help: 'direct server return for ClusterIP load balancers' },
    'root-hnsendpoint-name': {
      type: 'string',
      value: 'NAME',
      help: "the host's HNS endpoint, target of forwarded health checks",
      default: 'cbr0',
    },
    'forward-healthcheck-vip': { type: 'boolean', help: "forward LB IPs' health-check port to the host" },
    'healthz-port': {
      type: 'string',
      value: 'PORT',
      help: 'health-check port of LB IPs of Services without a healthCheckNodePort',
      default: '10256',
    },
    'ip-families': { type: 'string', value: 'LIST', help: 'IPv4,IPv6 (overlay networks: IPv4 only)', default: 'both' },
  },
  parseFlags: (values) => parseWinKernelFlags(values),
  // The Service from the API server (HNS keeps no names), then its HNS load balancers and their endpoints.
  explain: (options, service, ctx) => explainWinKernel(options, service, ctx),
  create: (config, ctx) => new WinKernelBackend({ ...config, metrics: ctx.registry }),
});
