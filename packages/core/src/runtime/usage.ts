import type { BackendFlag, BackendModule } from './backend-module.js';
import type { ProgramFlagsSpec } from './program-options.js';

/** `--help` of any kpng program: the common flags, then the backend's own, from its declaration. */
export function usage(
  spec: ProgramFlagsSpec & { readonly summary: string; readonly exampleFallback: boolean },
): string {
  const p = spec.program;
  const sections = [
    `${p}: ${spec.summary}\n\nUsage: ${p} [run] [flags]\n${
      spec.selectsBackend === true
        ? `       ${p} explain NAMESPACE/NAME --backend nft|iptables|ipvs|ebpf|win-kernel [--netns NS] [--kubeconfig PATH] [backend flags]\n`
        : ''
    }`,
    `Sources (default: the API server, from a kubeconfig or in-cluster config${spec.exampleFallback ? ';\nwithout one, the example cluster in examples/cluster.yaml' : ''}):
  --source kube|file|api|connect   where the state comes from (implied by the flags below)
  --kubeconfig PATH            kubeconfig file (also $KUBECONFIG, ~/.kube/config, in-cluster)
  --master URL                 API server address, overrides the kubeconfig's
  --file PATH                  YAML/JSON manifests (file or directory), re-read on change
  --api ADDRESS                the global stream of a central core (unix:///... or host:port)
  --api-tls-ca PATH            mutual TLS to the central core, required unless --api is a unix socket or
  --api-tls-cert PATH          loopback: the CA that signed the core's certificate, and this node's client
  --api-tls-key PATH           certificate and key (PEM; read at start)
  --connect ADDRESS            a core's node-local stream (split mode: no core in this process)
  --service-proxy-name NAME    serve only Services labelled service.kubernetes.io/service-proxy-name=NAME
Node:
  --node-name NAME             this node (default $NODE_NAME, else the hostname); alias --hostname-override`,
    spec.backend ? backendSection(spec.backend) : '',
    spec.selectsBackend
      ? `In-process backend:
  --backend MODULE             program the kernel in this process: a backend by name (nft) or package
                               (@kpng/nft), or "log" (prints each state it would program); the backend's
                               own flags follow it on the command line (see kpng --backend nft --help)`
      : '',
    `Serving:
  --listen ADDRESS             node-local full-state stream (default ${spec.listenDefault ?? 'off'}; "none" disables)
  --policy-view                also watch Pods, Namespaces and NetworkPolicies and serve the node-local
                               policy view on the stream (for an enforcer over --connect, e.g. kpng-netpol)
  --global-listen ADDRESS      serve the global model to node agents (central-core mode; default off)
  --global-tls-cert PATH       mutual TLS, required unless --global-listen is a unix socket or loopback:
  --global-tls-key PATH        the server certificate and key, and the CA whose client certificates are
  --global-tls-client-ca PATH  served (any other client is refused) (PEM; read at start)
  --metrics-bind-address ADDR  /metrics, /proxyMode, /configz (default 127.0.0.1:10249; "none" disables)
  --healthz-bind-address ADDR  /healthz, /livez (default 0.0.0.0:10256; "none" disables)
Cadence:
  --min-sync-period DURATION   minimum interval between syncs (default 0s: a lone change syncs at once)
  --sync-period DURATION       retry interval after a failed sync; health timeout is twice this (default 30s)
  --full-sync-period DURATION  upper bound between full resyncs (default 1h)
Other:
  --netns NAME                 program the kernel of this network namespace (tests, labs)
  --cleanup                    remove everything the backend programmed, and exit
  --dry-run                    print this node's local state once and exit
  -o, --output FORMAT          summary|json|yaml, for --dry-run and the log backend (default summary)
  -v, --v N                    log verbosity (klog)
  --vmodule PATTERN=N,...      per-module verbosity (klog; PATTERN is a module's base name, e.g. sync-loop=4)
  --logging-format FORMAT      text (klog, default) or json (component-base's shape)
  --version, -h/--help`,
  ];
  return sections.filter(Boolean).join('\n') + '\n';
}

function backendSection(module: BackendModule<unknown>): string {
  const lines = Object.entries(module.flags).map(([name, flag]) => flagLine(name, flag));
  return [`Backend ${module.name} (${module.proxyMode}): ${module.summary}`, ...lines].join('\n');
}

function flagLine(name: string, flag: BackendFlag): string {
  const left = `  --${name}${flag.type === 'string' ? ` ${flag.value ?? 'VALUE'}` : ''}`;
  const help = `${flag.help}${flag.default !== undefined ? ` (default ${flag.default})` : ''}${flag.multiple ? ' (repeatable)' : ''}`;
  return left.length < 31 ? `${left.padEnd(31)}${help}` : `${left}\n${' '.repeat(31)}${help}`;
}
