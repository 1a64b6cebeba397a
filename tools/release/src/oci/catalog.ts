/**
 * Every image kpng ships, one entry each. Both build paths come from this table:
 * `deploy/images/<name>/Dockerfile` is generated from an entry (`npm run -w @kpng/release images --
 * dockerfiles`; a test fails when a committed Dockerfile differs), and `tools/release`'s buildah
 * recipe (`npm run -w @kpng/release images`) builds the same layout, user, entrypoint and labels
 * from an mmdebstrap root filesystem (a test compares the built image with the Dockerfile).
 * Adding an image is adding an entry here, then regenerating: the smoke tests pick it up.
 */
export interface ImageSpec {
  /** Folder under deploy/images and repository name (`kpng/<name>`). */
  readonly name: string;
  /** One line: the image's `org.opencontainers.image.description`. */
  readonly summary: string;
  /** Comment lines at the top of the Dockerfile: what runs, how it is deployed, what it needs. */
  readonly about: readonly string[];
  /** Workspace packages packed and installed into /opt/kpng (kpng's packages are not on a registry: list every `@kpng/*` dependency too). */
  readonly packages: readonly string[];
  /** Debian packages of the runtime, exactly the tools the program executes and the libraries it loads (FFI). */
  readonly apt: readonly string[];
  readonly aptWhy?: readonly string[];
  /** `root` only for images that program the kernel (capabilities are granted to uid 0 only). */
  readonly user: 'root' | 'node';
  readonly userWhy: readonly string[];
  /** Exec form; `node <file>` or an absolute path (a `links` entry into /opt/kpng/node_modules). */
  readonly entrypoint: readonly string[];
  /** Symbolic links in the runtime: link -> target. */
  readonly links?: Readonly<Record<string, string>>;
  /** Folders created for, and owned by, the image's user. */
  readonly userDirs?: readonly string[];
  readonly userDirsWhy?: readonly string[];
  readonly ports: readonly number[];
  /** Programs the entrypoint executes from PATH: the smoke test finds and runs each in the image. */
  readonly tools: readonly string[];
  /**
   * Keep `/usr/bin/sh` (dash): images carry no shell unless something runs one (the build removes
   * every program and library no program of the image runs or loads: `slim.ts`).
   */
  readonly shell?: boolean;
  readonly shellWhy?: string;
  /** Shared libraries the program loads through FFI (koffi): the e2e loads each with the image's node and koffi. */
  readonly libraries?: readonly string[];
  /** Smoke runs of the entrypoint (see `SmokeRun`), each in fresh namespaces. */
  readonly runs?: readonly SmokeRun[];
}

/**
 * The entrypoint with `args`, as the image's user, chrooted in a fresh network namespace, until
 * `check` (run in the image) prints every `expect` string: for a backend, its rules listed with the
 * image's own tools. In `args`, `{file}` is src/oci/testdata/smoke-cluster.yaml copied into the
 * image, `{kubeconfig}` a kubeconfig for the lab's fake API server serving the same objects,
 * started inside the namespace.
 */
export interface SmokeRun {
  readonly name: string;
  readonly args: readonly string[];
  readonly check: readonly string[];
  readonly expect: readonly string[];
  /**
   * Then a real packet: the image runs on the node of a lab whose pods pod-a and pod-b (the
   * manifest's endpoints) run echo servers, and a connection from the node to `ip:port` must be
   * answered by one of them.
   */
  readonly probe?: { readonly proto: 'tcp' | 'udp'; readonly ip: string; readonly port: number };
}

/**
 * The smoke runs' namespaces are not the root one, where nf_conntrack_max is read-only: kube-proxy
 * leaves the table size alone there (as kind configures upstream's), since a refused conntrack
 * sysctl stops its start, as upstream's.
 */
const smokeArgs = (mode: string) => [
  '--kubeconfig',
  '{kubeconfig}',
  '--hostname-override',
  'node-a',
  '--proxy-mode',
  mode,
  '--conntrack-max-per-core=0',
];

/** Why the images running the nft backend keep `sh`. */
const NFT_SHELL =
  "the nft backend runs each nft command through one long-lived sh (@kpng/nftables' ShellExecer), not a fork of node each time";

export const IMAGE_CATALOG: readonly ImageSpec[] = [
  {
    name: 'kpng',
    summary: 'kpng core alone: central core or the core container of a split pod',
    about: [
      'kpng: the core alone (no kernel backend). Runs the central core (`--global-listen`) or the core',
      'container of a split pod (`--listen unix:///run/kpng/kpng.sock`). Needs no capabilities.',
    ],
    packages: ['@kpng/core', '@kpng/kit'],
    apt: [],
    user: 'node',
    userWhy: ["The core needs no privilege: run as the image's unprivileged `node` user (uid 1000)."],
    entrypoint: ['node', '/opt/kpng/node_modules/@kpng/core/dist/cli/main.js'],
    userDirs: ['/run/kpng'],
    userDirsWhy: ['The default stream socket (unix:///run/kpng/kpng.sock) must be creatable by the `node` user.'],
    ports: [10249, 10256, 12090],
    tools: [],
    runs: [
      {
        name: 'core from a manifest file',
        args: ['--file', '{file}', '--node-name', 'node-a'],
        // The image has no coreutils: node (the image's own) says the socket's owner and type.
        check: [
          'node',
          '-p',
          "const s = require('fs').statSync('/run/kpng/kpng.sock'); `${s.uid} ${s.isSocket() ? 'socket' : 'not a socket'}`",
        ],
        expect: ['1000 socket'],
      },
    ],
  },
  {
    name: 'kpng-nft',
    summary: 'kpng-nft: kpng core and the nftables backend in one process',
    about: [
      'kpng-nft: the `kpng-nft` program, core + the nftables backend in one process (single-backend',
      'DaemonSet), or the backend container of a split pod (`kpng-nft --connect unix:///run/kpng/kpng.sock`).',
      "`kpng` (core's CLI, `kpng --api ... --backend @kpng/nft`) is installed beside it for central-mode",
      'node agents. Programs the kernel: needs root with CAP_NET_ADMIN and CAP_NET_RAW (the manifests',
      'drop every other capability; see deploy/README.md).',
    ],
    packages: ['@kpng/core', '@kpng/kit', '@kpng/nftables', '@kpng/nft'],
    apt: ['nftables', 'conntrack'],
    aptWhy: ['nft programs the rules; conntrack flushes stale UDP/SCTP flows after endpoint changes.'],
    user: 'root',
    userWhy: [
      'Root, on purpose: Kubernetes grants added capabilities (NET_ADMIN, NET_RAW) to uid 0 only (no',
      'ambient capabilities for other users). The manifests drop every other capability.',
    ],
    entrypoint: ['node', '/opt/kpng/node_modules/@kpng/nft/dist/cli/main.js'],
    ports: [10249, 10256],
    tools: ['nft', 'conntrack'],
    shell: true,
    shellWhy: NFT_SHELL,
    runs: [
      {
        name: 'nftables from a manifest file',
        args: ['--file', '{file}', '--node-name', 'node-a'],
        check: ['nft', 'list', 'table', 'ip', 'kpng'],
        expect: ['198.19.0.10', '198.19.0.53', '198.18.1.11', '30080', 'dnat'],
        probe: { proto: 'tcp', ip: '198.19.0.10', port: 80 },
      },
    ],
  },
  {
    name: 'kpng-iptables',
    summary: 'kpng-iptables: kpng core and the iptables backend in one process',
    about: [
      'kpng-iptables: the `kpng-iptables` program, core + the iptables backend in one process (single-backend',
      'DaemonSet), or the backend container of a split pod (`kpng-iptables --connect unix:///run/kpng/kpng.sock`).',
      "Programs kube-proxy's own chains (KUBE-SERVICES, KUBE-SVC-*, ...) with iptables-restore, legacy or nft",
      'flavour as the host uses. Needs root with CAP_NET_ADMIN and CAP_NET_RAW (see deploy/README.md).',
    ],
    packages: ['@kpng/core', '@kpng/kit', '@kpng/iptables'],
    apt: ['iptables', 'conntrack', 'nfacct', 'iproute2'],
    aptWhy: [
      'iptables-restore (legacy and nft flavours) programs the rules; conntrack flushes stale UDP/SCTP flows after endpoint changes;',
      "nfacct creates and reads upstream's two accounting objects (ct_state_invalid_dropped_pkts, localhost_nps_accepted_pkts);",
      "ip (iproute2) lists the host's interface addresses each sync when --nodeport-addresses selects some.",
    ],
    user: 'root',
    userWhy: [
      'Root, on purpose: Kubernetes grants added capabilities (NET_ADMIN, NET_RAW) to uid 0 only (no',
      'ambient capabilities for other users). The manifests drop every other capability.',
    ],
    entrypoint: ['node', '/opt/kpng/node_modules/@kpng/iptables/dist/cli/main.js'],
    ports: [10249, 10256],
    tools: ['iptables-restore', 'iptables-save', 'conntrack', 'nfacct', 'ip'],
    runs: [
      {
        name: 'iptables from a manifest file',
        args: ['--file', '{file}', '--node-name', 'node-a'],
        check: ['iptables-save', '-t', 'nat'],
        expect: ['KUBE-SERVICES', '198.19.0.10', 'KUBE-SVC-'],
        probe: { proto: 'tcp', ip: '198.19.0.10', port: 80 },
      },
    ],
  },
  {
    name: 'kpng-ipvs',
    summary: 'kpng-ipvs: kpng core and the IPVS backend in one process',
    about: [
      'kpng-ipvs: the `kpng-ipvs` program, core + the IPVS backend in one process (single-backend',
      'DaemonSet), or the backend container of a split pod (`kpng-ipvs --connect unix:///run/kpng/kpng.sock`).',
      "`kpng` (core's CLI, `kpng --api ... --backend @kpng/ipvs`) is installed beside it for central-mode",
      'node agents. Programs the kernel: needs root with CAP_NET_ADMIN and CAP_NET_RAW (the manifests',
      'drop every other capability; see deploy/README.md).',
    ],
    packages: ['@kpng/core', '@kpng/kit', '@kpng/nftables', '@kpng/ipvs'],
    apt: ['nftables', 'iproute2', 'procps'],
    aptWhy: [
      'IPVS itself is programmed over netlink (koffi, no ipvsadm); nft holds the masquerade/reject',
      'rules; ip (iproute2) binds Service addresses to kube-ipvs0; sysctl (procps) sets net.ipv4.vs.*.',
    ],
    user: 'root',
    userWhy: [
      'Root, on purpose: Kubernetes grants added capabilities (NET_ADMIN, NET_RAW) to uid 0 only (no',
      'ambient capabilities for other users). The manifests drop every other capability.',
    ],
    entrypoint: ['node', '/opt/kpng/node_modules/@kpng/ipvs/dist/cli/main.js'],
    ports: [10249, 10256],
    // No smoke run here: this kernel has no IPVS (the ipvs package's suite runs in the lab's VM).
    tools: ['nft', 'ip', 'sysctl'],
  },
  {
    name: 'kpng-netpol',
    summary: 'kpng-netpol: kpng core and the NetworkPolicy enforcer in one process',
    about: [
      'kpng-netpol: the `kpng-netpol` program, core + the NetworkPolicy enforcer in one process: it watches',
      'Pods, Namespaces and NetworkPolicies and programs one nftables table, `inet kpng-netpol`, beside',
      'whatever service proxy the node runs (or beside none). Programs the kernel: needs root with CAP_NET_ADMIN',
      '(see deploy/README.md).',
    ],
    packages: ['@kpng/core', '@kpng/kit', '@kpng/nftables', '@kpng/netpol'],
    apt: ['nftables'],
    aptWhy: ['nft programs the table (sets, verdict maps and chains); nothing else is executed.'],
    user: 'root',
    userWhy: [
      'Root, on purpose: Kubernetes grants added capabilities (NET_ADMIN) to uid 0 only (no ambient',
      'capabilities for other users). The manifests drop every other capability.',
    ],
    entrypoint: ['node', '/opt/kpng/node_modules/@kpng/netpol/dist/cli/main.js'],
    ports: [10249, 10256],
    tools: ['nft'],
    shell: true,
    shellWhy:
      "the enforcer's transactions go through one long-lived `nft -i` started by sh (its stderr merged into its answers), and its other nft commands through one long-lived sh (@kpng/nftables)",
    runs: [
      {
        // The manifest's policy selects web-a (198.18.1.10) and allows TCP 8080 from app=client (198.18.1.11).
        name: 'policy enforcement against an API server',
        args: ['--kubeconfig', '{kubeconfig}', '--node-name', 'node-a'],
        check: ['nft', 'list', 'table', 'inet', 'kpng-netpol'],
        expect: ['198.18.1.10 : jump', '198.18.1.11', '8080', 'drop'],
      },
    ],
  },
  {
    name: 'kpng-ebpf',
    summary:
      'kpng-ebpf: kpng core and the eBPF backend (socket load balancing, nftables for the packet path) in one process',
    about: [
      'kpng-ebpf: the `kpng-ebpf` program, core + the eBPF backend in one process (single-backend DaemonSet),',
      'or the backend container of a split pod (`kpng-ebpf --connect unix:///run/kpng/kpng.sock`): BPF programs',
      "in the cgroup named by --cgroup-root (the node's cgroup v2 root) balance Services at connect()/sendmsg();",
      '`--packet-path nft` programs NodePorts and traffic entering the node with the nft backend. `kpng`',
      "(core's CLI, `kpng --api ... --backend @kpng/ebpf`) is installed beside it. Needs root with CAP_BPF,",
      "CAP_NET_ADMIN and CAP_NET_RAW (CAP_SYS_ADMIN before Linux 5.8), and the node's cgroup v2 hierarchy",
      'in the container (--cgroup-root names it).',
    ],
    packages: ['@kpng/core', '@kpng/kit', '@kpng/nftables', '@kpng/nft', '@kpng/ebpf'],
    apt: ['libbpf1', 'nftables', 'conntrack'],
    aptWhy: [
      'libbpf1: the libbpf.so.1 @kpng/ebpf loads and attaches its BPF programs with (koffi; the compiled',
      'objects ship in the package); the packet path (--packet-path nft): nft programs its rules, conntrack',
      'flushes stale UDP/SCTP flows of the NAT it does after endpoint changes.',
    ],
    user: 'root',
    userWhy: [
      'Root, on purpose: Kubernetes grants added capabilities (NET_ADMIN, NET_RAW, BPF) to uid 0 only (no',
      'ambient capabilities for other users).',
    ],
    entrypoint: ['node', '/opt/kpng/node_modules/@kpng/ebpf/dist/cli/main.js'],
    ports: [10249, 10256],
    // No smoke run here: the program attaches to a cgroup v2 directory, which the chroot the smoke
    // runs use does not mount (the ebpf package's kernel suites attach to a cgroup of their own);
    // the library it loads is checked below (libraries).
    tools: ['nft', 'conntrack'],
    shell: true,
    shellWhy: NFT_SHELL,
    libraries: ['libbpf.so.1'],
  },
  {
    name: 'kube-proxy',
    summary: "kpng's drop-in kube-proxy: kube-proxy's flags and KubeProxyConfiguration, every backend vendored",
    about: [
      "kube-proxy: kpng's drop-in kube-proxy (kube-proxy's flags and KubeProxyConfiguration), every",
      "backend vendored. `/usr/local/bin/kube-proxy` is where kubeadm's DaemonSet runs it from, so the",
      'image can replace registry.k8s.io/kube-proxy in an existing DaemonSet unchanged.',
      'Needs root with CAP_NET_ADMIN and CAP_NET_RAW (see deploy/README.md).',
    ],
    packages: [
      '@kpng/core',
      '@kpng/kit',
      '@kpng/nftables',
      '@kpng/nft',
      '@kpng/iptables',
      '@kpng/ipvs',
      '@kpng/ebpf',
      '@kpng/win-kernel',
      '@kpng/netpol',
      '@kpng/kube-proxy',
    ],
    apt: ['nftables', 'iptables', 'conntrack', 'iproute2', 'procps', 'ipset', 'libbpf1', 'nfacct'],
    aptWhy: [
      "nftables mode: nft; iptables mode (and cleanup of another mode's rules): iptables, ip6tables;",
      "iptables mode: nfacct creates and reads upstream's two accounting objects for its metrics;",
      'ipvs mode: ip binds Service addresses to kube-ipvs0, sysctl (procps) sets net.ipv4.vs.*, IPVS',
      'itself over netlink; all modes: conntrack; every mode and --cleanup: ipset destroys the sets',
      "upstream's ipvs mode left (once no rule matches on them); ebpf mode (kpng's extension): libbpf1,",
      'the libbpf.so.1 @kpng/ebpf loads its BPF programs with (koffi; the compiled objects ship in it).',
    ],
    user: 'root',
    userWhy: ['Root, on purpose: see deploy/README.md (capabilities are granted to uid 0 only).'],
    entrypoint: ['/usr/local/bin/kube-proxy'],
    links: { '/usr/local/bin/kube-proxy': '/opt/kpng/node_modules/@kpng/kube-proxy/dist/cli/main.js' },
    ports: [10249, 10256],
    shell: true,
    shellWhy: NFT_SHELL,
    libraries: ['libbpf.so.1'],
    tools: [
      'nft',
      'iptables',
      'ip6tables',
      'iptables-restore',
      'ip6tables-restore',
      'iptables-legacy',
      'conntrack',
      'ip',
      'sysctl',
      'ipset',
      'nfacct',
    ],
    runs: [
      {
        name: 'nftables mode against an API server',
        args: smokeArgs('nftables'),
        check: ['nft', 'list', 'table', 'ip', 'kube-proxy'], // the compat binary's table is upstream's name
        expect: ['198.19.0.10', '198.19.0.53', '198.18.1.11', 'dnat'],
        probe: { proto: 'tcp', ip: '198.19.0.10', port: 80 },
      },
      {
        name: 'iptables mode against an API server',
        args: smokeArgs('iptables'),
        check: ['iptables-save', '-t', 'nat'],
        expect: ['KUBE-SERVICES', '198.19.0.10/32', '198.19.0.53/32', '198.18.1.11:8080'],
        probe: { proto: 'tcp', ip: '198.19.0.10', port: 80 },
      },
    ],
  },
  {
    name: 'test-clients',
    summary:
      'kpng latency clients: pod creation reachability, network policy enforcement and service programming latency, as Prometheus metrics',
    about: [
      'test-clients: the end-to-end latency clients of @kpng/test-clients, each a program on PATH:',
      '`service-programming-latency` (the entrypoint), `pod-creation-reachability-latency` and',
      '`policy-creation-enforcement-latency` (run them with `command:`). Metrics on :9154. They only',
      'read the API and connect to Services: no capabilities, an unprivileged user.',
    ],
    packages: ['@kpng/core', '@kpng/kit', '@kpng/test-clients'],
    apt: [],
    user: 'node',
    userWhy: ["The clients need no privilege: run as the image's unprivileged `node` user (uid 1000)."],
    entrypoint: ['/usr/local/bin/service-programming-latency'],
    // On PATH, and in `/` as well: clusterloader2's manifests run `sh -c ./<client> ...` from the
    // image's working directory (`/`) under upstream's two image names (packages/test-clients/scripts/publish-clusterloader2-images.sh).
    links: Object.fromEntries(
      [
        'service-programming-latency',
        'pod-creation-reachability-latency',
        'policy-creation-enforcement-latency',
      ].flatMap((bin) => {
        const target = `/opt/kpng/node_modules/@kpng/test-clients/dist/bin/${bin}.js`;
        return [
          [`/usr/local/bin/${bin}`, target],
          [`/${bin}`, target],
        ];
      }),
    ),
    ports: [9154],
    tools: [],
    shell: true,
    shellWhy: "clusterloader2's manifests start the clients with `sh -c`",
  },
];

export function imageSpec(name: string): ImageSpec {
  const spec = IMAGE_CATALOG.find((s) => s.name === name);
  if (!spec)
    throw new Error(`no image ${JSON.stringify(name)} in the catalog (${IMAGE_CATALOG.map((s) => s.name).join(', ')})`);
  return spec;
}
