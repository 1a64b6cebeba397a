/**
 * kube-proxy's command line (cmd/kube-proxy/app/options.go, Linux), every flag with the field it
 * sets. Flags without `apply` are read by name in `complete.ts`: they are not plain fields
 * (`--master`), or their target depends on the final mode (`--iptables-sync-period`).
 */
import { parseVModule } from '@kpng/core/entry';
import { IPVS_SCHEDULERS, KPNG_PROXY_MODES, LOCAL_MODES, LOGGING_FORMATS, PROXY_MODES } from '../config/types.js';
import type { KubeProxyConfiguration } from '../config/types.js';
import { boolFlag, valueFlag, type FlagSpec } from './spec.js';
import {
  oneOf,
  parseBool,
  parseDurationFlag as duration,
  parseFloat32,
  parseInt32 as int32,
  parseIPFlag,
  parseIPPortFlag,
  parseLevel,
  parseFeatureGates,
  parseQuantity,
  parseStringSlice,
} from './values.js';

const str = (text: string) => text;
const withConfig = { withConfig: true } as const;

/** Sets `logging.options.<format>.<key>` (logsapi's per-format options). */
function loggingOption(format: 'json' | 'text', key: string) {
  return (c: KubeProxyConfiguration, v: unknown) => {
    const current = c.logging.options[format];
    c.logging.options[format] = { ...(typeof current === 'object' && current !== null ? current : {}), [key]: v };
  };
}

export const FLAGS: readonly FlagSpec[] = [
  // The command itself
  valueFlag('config', 'string', str, 'Path to a KubeProxyConfiguration file (YAML or JSON).', undefined, withConfig),
  valueFlag(
    'write-config-to',
    'string',
    str,
    'Write the effective configuration to this file and exit.',
    undefined,
    withConfig,
  ),
  boolFlag(
    'cleanup',
    parseBool,
    'Remove the rules kube-proxy programmed (kpng and upstream nftables tables) and exit.',
    undefined,
    withConfig,
  ),
  boolFlag(
    'init-only',
    parseBool,
    'Do the privileged initialisation and exit (kpng: nothing to do).',
    undefined,
    withConfig,
  ),
  boolFlag('help', parseBool, 'Help for kube-proxy.', undefined, { shorthand: 'h', withConfig: true }),
  {
    ...boolFlag(
      'version',
      parseVersionFlag,
      '--version, --version=raw prints version information and quits; --version=vX.Y.Z... sets the reported version.',
      undefined,
      withConfig,
    ),
    type: 'version[=true]',
  },
  valueFlag(
    'feature-gates',
    'mapStringBool',
    parseFeatureGates,
    `Feature gates, e.g. A=true,B=false. Upstream's gate names only (others are an error, as upstream); kpng warns about each, none changes its behaviour.`,
    (c, v) => Object.assign(c.featureGates, v),
  ),

  // API server
  valueFlag(
    'kubeconfig',
    'string',
    str,
    'Path to a kubeconfig file (the server can be overridden by --master).',
    (c, v) => (c.clientConnection.kubeconfig = v),
  ),
  valueFlag('master', 'string', str, 'The API server address (overrides the kubeconfig).', undefined, withConfig),
  valueFlag(
    'kube-api-content-type',
    'string',
    str,
    'Content type of requests sent to the API server (kpng always uses JSON).',
    (c, v) => (c.clientConnection.contentType = v),
    { defaultText: 'application/vnd.kubernetes.protobuf' },
  ),
  valueFlag(
    'kube-api-burst',
    'int32',
    int32,
    'Burst to use with the API server (accepted, not enforced by kpng).',
    (c, v) => (c.clientConnection.burst = v),
    { defaultText: '10' },
  ),
  valueFlag(
    'kube-api-qps',
    'float32',
    parseFloat32,
    'QPS to use with the API server (accepted, not enforced by kpng).',
    (c, v) => (c.clientConnection.qps = v),
    { defaultText: '5' },
  ),
  valueFlag(
    'config-sync-period',
    'duration',
    duration,
    'How often configuration from the API server is refreshed. Must be greater than 0.',
    (c, v) => (c.configSyncPeriod = v),
    { defaultText: '15m0s' },
  ),

  // Node and servers
  valueFlag(
    'hostname-override',
    'string',
    str,
    'The name of this Node (default: the hostname).',
    undefined,
    withConfig,
  ),
  valueFlag(
    'bind-address',
    'ip',
    parseIPFlag,
    `Overrides kube-proxy's idea of the node's primary IP.`,
    (c, v) => (c.bindAddress = v),
    { defaultText: '0.0.0.0' },
  ),
  valueFlag(
    'healthz-bind-address',
    'ipport',
    parseIPPortFlag,
    `Address of the health server (/healthz, /livez); empty disables it.`,
    (c, v) => (c.healthzBindAddress = v),
    { defaultText: '0.0.0.0:10256' },
  ),
  valueFlag(
    'metrics-bind-address',
    'ipport',
    parseIPPortFlag,
    `Address of the metrics server (/metrics, /proxyMode, /configz); empty disables it.`,
    (c, v) => (c.metricsBindAddress = v),
    { defaultText: '127.0.0.1:10249' },
  ),
  boolFlag(
    'bind-address-hard-fail',
    parseBool,
    'Exit when the health or metrics server cannot bind its port.',
    (c, v) => (c.bindAddressHardFail = v),
  ),
  boolFlag(
    'profiling',
    parseBool,
    `Enable /debug/pprof (not supported by kpng; warns).`,
    (c, v) => (c.enableProfiling = v),
  ),
  valueFlag(
    'show-hidden-metrics-for-version',
    'string',
    str,
    `The previous minor version whose hidden metrics to show (accepted, ignored).`,
    (c, v) => (c.showHiddenMetricsForVersion = v),
  ),
  valueFlag(
    'oom-score-adj',
    'int32',
    int32,
    `The oom-score-adj for the process, in [-1000, 1000] (validated, not applied by kpng).`,
    (c, v) => (c.oomScoreAdj = v),
    { defaultText: '-999' },
  ),

  // Mode
  valueFlag(
    'proxy-mode',
    'ProxyMode',
    oneOf(['', ...PROXY_MODES, ...KPNG_PROXY_MODES]),
    `Which proxy mode to use: on Linux 'iptables' (also what blank means), 'ipvs', 'nftables' or kpng's 'ebpf' (socket-level load balancing in cgroup BPF programs, nftables for traffic entering the node); on Windows 'kernelspace' (also what blank means).`,
    (c, v) => (c.mode = v),
  ),
  boolFlag(
    'with-netpol',
    parseBool,
    "kpng's extension: also enforce NetworkPolicy (@kpng/netpol, table inet kpng-netpol) beside the mode's backend, in this process (sets enforceNetworkPolicy; Linux modes only).",
    (c, v) => (c.enforceNetworkPolicy = v),
  ),
  boolFlag('masquerade-all', parseBool, 'SNAT all traffic sent to Service cluster IPs.'),
  valueFlag(
    'iptables-masquerade-bit',
    'int32',
    int32,
    'The fwmark bit for packets to SNAT in iptables/ipvs mode, in [0, 31] (nftables mode uses nftables.masqueradeBit).',
    (c, v) => (c.iptables.masqueradeBit = v),
    { defaultText: '14' },
  ),
  boolFlag(
    'iptables-localhost-nodeports',
    parseBool,
    'iptables mode only: allow NodePorts on localhost.',
    (c, v) => (c.iptables.localhostNodePorts = v),
    { defaultText: 'true' },
  ),
  valueFlag(
    'iptables-sync-period',
    'duration',
    duration,
    'Resync and retry interval (any mode but ipvs). Must be greater than 0.',
    undefined,
    { defaultText: '30s' },
  ),
  valueFlag(
    'iptables-min-sync-period',
    'duration',
    duration,
    'Minimum interval between rule syncs (any mode but ipvs); 0 syncs every change at once.',
    undefined,
    { defaultText: '1s' },
  ),
  valueFlag(
    'ipvs-sync-period',
    'duration',
    duration,
    'Resync and retry interval in ipvs mode. Must be greater than 0.',
    undefined,
    { defaultText: '30s' },
  ),
  valueFlag(
    'ipvs-min-sync-period',
    'duration',
    duration,
    'Minimum interval between rule syncs in ipvs mode.',
    undefined,
  ),
  valueFlag(
    'ipvs-scheduler',
    'string',
    oneOf(['', ...IPVS_SCHEDULERS]),
    'The ipvs scheduler (rr, wrr, lc, wlc, lblc, lblcr, sh, dh, sed, nq).',
    (c, v) => (c.ipvs.scheduler = v),
  ),
  valueFlag(
    'ipvs-exclude-cidrs',
    'strings',
    parseStringSlice,
    'CIDRs the ipvs proxier must not touch when cleaning up.',
    (c, v) => (c.ipvs.excludeCIDRs = v),
  ),
  boolFlag(
    'ipvs-strict-arp',
    parseBool,
    'Set arp_ignore=1 and arp_announce=2 (ipvs mode).',
    (c, v) => (c.ipvs.strictARP = v),
  ),
  valueFlag(
    'ipvs-tcp-timeout',
    'duration',
    duration,
    'Idle timeout of IPVS TCP connections; 0 leaves it as is.',
    (c, v) => (c.ipvs.tcpTimeout = v),
  ),
  valueFlag(
    'ipvs-tcpfin-timeout',
    'duration',
    duration,
    'Timeout of IPVS TCP connections after a FIN; 0 leaves it as is.',
    (c, v) => (c.ipvs.tcpFinTimeout = v),
  ),
  valueFlag(
    'ipvs-udp-timeout',
    'duration',
    duration,
    'Timeout of IPVS UDP packets; 0 leaves it as is.',
    (c, v) => (c.ipvs.udpTimeout = v),
  ),

  // Windows (kernelspace mode, the winkernel section)
  valueFlag(
    'network-name',
    'string',
    str,
    'kernelspace mode: the HNS network of the pods (default $KUBE_NETWORK).',
    (c, v) => (c.winkernel.networkName = v),
  ),
  valueFlag(
    'source-vip',
    'string',
    str,
    'kernelspace mode: the source VIP of this node, required on overlay networks.',
    (c, v) => (c.winkernel.sourceVip = v),
  ),
  boolFlag(
    'enable-dsr',
    parseBool,
    'kernelspace mode: direct server return for ClusterIP load balancers.',
    (c, v) => (c.winkernel.enableDSR = v),
  ),
  boolFlag(
    'windows-service',
    parseBool,
    'Windows: run as a Windows service (upstream: Service Control Manager integration; kpng: accepted, not acted on, with a warning).',
    (c, v) => (c.windowsRunAsService = v),
  ),
  valueFlag(
    'root-hnsendpoint-name',
    'string',
    str,
    "kernelspace mode: the host's HNS endpoint, target of forwarded health checks.",
    (c, v) => (c.winkernel.rootHnsEndpointName = v),
    { defaultText: 'cbr0' },
  ),
  boolFlag(
    'forward-healthcheck-vip',
    parseBool,
    "kernelspace mode: forward LB IPs' health-check port to the host.",
    (c, v) => (c.winkernel.forwardHealthCheckVip = v),
  ),

  // Traffic classification
  valueFlag(
    'detect-local-mode',
    'LocalMode',
    oneOf(['', ...LOCAL_MODES]),
    `How to tell local (pod) traffic: ClusterCIDR, NodeCIDR, BridgeInterface or InterfaceNamePrefix.`,
    (c, v) => (c.detectLocalMode = v),
    { defaultText: 'ClusterCIDR' },
  ),
  valueFlag(
    'pod-bridge-interface',
    'string',
    str,
    "With --detect-local-mode=BridgeInterface: the pods' bridge.",
    (c, v) => (c.detectLocal.bridgeInterface = v),
  ),
  valueFlag(
    'pod-interface-name-prefix',
    'string',
    str,
    "With --detect-local-mode=InterfaceNamePrefix: the pods' interface name prefix.",
    (c, v) => (c.detectLocal.interfaceNamePrefix = v),
  ),
  valueFlag(
    'cluster-cidr',
    'string',
    str,
    `The pods' CIDR (a dual-stack pair allowed, comma-separated), for --detect-local-mode=ClusterCIDR.`,
  ),
  valueFlag(
    'nodeport-addresses',
    'strings',
    parseStringSlice,
    `CIDRs of the node IPs that accept NodePorts, or "primary" (nftables default: primary).`,
    (c, v) => (c.nodePortAddresses = v),
  ),

  // Conntrack
  valueFlag(
    'conntrack-max-per-core',
    'int32',
    int32,
    'Maximum tracked connections per CPU core (0 leaves the limit and ignores --conntrack-min).',
    (c, v) => (c.conntrack.maxPerCore = v),
    { defaultText: '32768' },
  ),
  valueFlag(
    'conntrack-min',
    'int32',
    int32,
    'Minimum conntrack table size, whatever --conntrack-max-per-core gives.',
    (c, v) => (c.conntrack.min = v),
    { defaultText: '131072' },
  ),
  valueFlag(
    'conntrack-tcp-timeout-established',
    'duration',
    duration,
    'Idle timeout of established TCP connections (0 leaves it as is).',
    (c, v) => (c.conntrack.tcpEstablishedTimeout = v),
    { defaultText: '24h0m0s' },
  ),
  valueFlag(
    'conntrack-tcp-timeout-close-wait',
    'duration',
    duration,
    'Timeout of TCP connections in CLOSE_WAIT.',
    (c, v) => (c.conntrack.tcpCloseWaitTimeout = v),
    { defaultText: '1h0m0s' },
  ),
  boolFlag(
    'conntrack-tcp-be-liberal',
    parseBool,
    'Set nf_conntrack_tcp_be_liberal=1.',
    (c, v) => (c.conntrack.tcpBeLiberal = v),
  ),
  valueFlag(
    'conntrack-udp-timeout',
    'duration',
    duration,
    'Idle timeout of UNREPLIED UDP flows (0 leaves it as is).',
    (c, v) => (c.conntrack.udpTimeout = v),
  ),
  valueFlag(
    'conntrack-udp-timeout-stream',
    'duration',
    duration,
    'Idle timeout of ASSURED UDP flows (0 leaves it as is).',
    (c, v) => (c.conntrack.udpStreamTimeout = v),
  ),

  // Deprecated
  valueFlag('healthz-port', 'int32', int32, 'The health server port; 0 disables it.', undefined, {
    deprecated: 'use --healthz-bind-address instead',
    defaultText: '10256',
  }),
  valueFlag('metrics-port', 'int32', int32, 'The metrics server port; 0 disables it.', undefined, {
    deprecated: 'use --metrics-bind-address instead',
    defaultText: '10249',
  }),
  valueFlag(
    'proxy-port-range',
    'port-range',
    str,
    'Unused since the userspace proxy was removed.',
    (c, v) => (c.portRange = v),
    { deprecated: 'this flag has no effect and will be removed' },
  ),

  // Logging (copied over a config file's logging section, as upstream does)
  valueFlag('v', 'Level', parseLevel, 'Log verbosity.', (c, v) => (c.logging.verbosity = v), {
    shorthand: 'v',
    withConfig: true,
  }),
  valueFlag(
    'vmodule',
    'pattern=N,...',
    parseVModule,
    'Per-module verbosity (klog; a pattern names a JavaScript module, e.g. sync-loop=4).',
    (c, v) => (c.logging.vmodule = v),
    withConfig,
  ),
  valueFlag(
    'logging-format',
    'string',
    oneOf(LOGGING_FORMATS),
    'Log format: text or json.',
    (c, v) => (c.logging.format = v),
    { defaultText: 'text', withConfig: true },
  ),
  valueFlag(
    'log-flush-frequency',
    'duration',
    duration,
    'Maximum seconds between log flushes.',
    (c, v) => (c.logging.flushFrequency = v),
    { defaultText: '5s', withConfig: true },
  ),
  valueFlag(
    'log-json-info-buffer-size',
    'quantity',
    parseQuantity,
    '[Alpha] In JSON format with split output streams, the info messages can be buffered for a while (accepted; kpng writes every line at once).',
    loggingOption('json', 'infoBufferSize'),
    withConfig,
  ),
  boolFlag(
    'log-json-split-stream',
    parseBool,
    '[Alpha] In JSON format, write error messages to stderr and info messages to stdout.',
    loggingOption('json', 'splitStream'),
    withConfig,
  ),
  valueFlag(
    'log-text-info-buffer-size',
    'quantity',
    parseQuantity,
    '[Alpha] In text format with split output streams, the info messages can be buffered for a while (accepted; kpng writes every line at once).',
    loggingOption('text', 'infoBufferSize'),
    withConfig,
  ),
  boolFlag(
    'log-text-split-stream',
    parseBool,
    '[Alpha] In text format, write error messages to stderr and info messages to stdout.',
    loggingOption('text', 'splitStream'),
    withConfig,
  ),

  // cAdvisor's flags, which upstream lists because it adds Go's global flag set (accepted, unused).
  valueFlag(
    'boot-id-file',
    'string',
    str,
    'Comma-separated list of files to check for boot-id; the first that exists is used (accepted; kpng does not read it).',
    undefined,
    { defaultText: '/proc/sys/kernel/random/boot_id' },
  ),
  valueFlag(
    'machine-id-file',
    'string',
    str,
    'Comma-separated list of files to check for machine-id; the first that exists is used (accepted; kpng does not read it).',
    undefined,
    { defaultText: '/etc/machine-id,/var/lib/dbus/machine-id' },
  ),
];

/**
 * component-base's verflag: a boolean, `raw`, or a version to report instead of the binary's own
 * (`v1.31.0`), after which the program runs normally.
 */
function parseVersionFlag(text: string): boolean | 'raw' | `v${string}` {
  if (text === 'raw') return 'raw';
  if (/^v\d+\.\d+\.\d+(?:[-+][0-9A-Za-z.+-]*)?$/.test(text)) return text as `v${string}`;
  return parseBool(text);
}

const BY_NAME = new Map(FLAGS.map((f) => [f.name, f]));
const BY_SHORTHAND = new Map(FLAGS.filter((f) => f.shorthand).map((f) => [f.shorthand!, f]));

/** As upstream's `cliflag.WordSepNormalizeFunc`: `--masquerade_all` is `--masquerade-all`. */
export function normalizeFlagName(name: string): string {
  return name.replaceAll('_', '-');
}

export function flagNamed(name: string): FlagSpec | undefined {
  return BY_NAME.get(normalizeFlagName(name));
}

export function flagWithShorthand(letter: string): FlagSpec | undefined {
  return BY_SHORTHAND.get(letter);
}
