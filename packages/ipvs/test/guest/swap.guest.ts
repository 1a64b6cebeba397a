// The swap matrix's IPVS cells (issue 27; the other cells run on this machine's kernel in
// packages/kube-proxy/test/swap.e2e.test.ts), in the same VM boot as the other guest suites: a node
// that upstream kube-proxy's ipvs mode programmed, built as its source describes (`kube-ipvs0` with
// the ClusterIP, the virtual server and its real server, the 17 ipsets, its iptables chains with the
// REJECT of KUBE-IPVS-FILTER; `@kpng/lab/fault`'s upstream-ipvs), taken over by the compiled compat
// `kube-proxy` in each of its Linux modes (ipvs, nftables, iptables) as a child process while a pod
// opens a new ClusterIP connection every 250 ms. Each cell asserts (a) no new connection failed
// through the swap, (b) after kpng's first sync no chain or ipset of upstream's ipvs mode is left,
// and IPVS is taken over in place (ipvs) or gone (the other modes), (c) `kube-proxy --cleanup` exits
// 0 and leaves no virtual server, kube-ipvs0, KUBE-* chain, ipset or table. The ipvs cell's clean-up
// is the rollback (d): upstream's state built after it serves the ClusterIP with real packets, and
// the next cell starts from that state. The first case is `--cleanup` straight on upstream's state
// (it exited 1 there: its nat restore deleted KUBE-MARK-MASQ while KUBE-NODE-PORT still jumped to it).
// Cheap by design (the guest is one emulated CPU in CI): one lab and one API server for every case,
// one traffic process per cell that runs from before the start until kpng's first sync is done,
// seven kube-proxy processes in all (three starts, four clean-ups).
import {
  FakeApiServer,
  kubeconfigFor,
  Lab,
  probeSteadily,
  startSteadily,
  type LabKubeconfig,
  type SteadyResult,
} from '@kpng/lab';
import {
  CLUSTER_IP,
  ECHO_PORT,
  endpointSlice,
  IPVS_MODE_IPSETS,
  ipsetRestore,
  iptablesRestore,
  ipvsCommands,
  node,
  NODE_NAME,
  service,
  SERVICE_PORT,
} from '@kpng/lab/fault';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnChild } from '@kpng/kit';
import { KUBE_PROXY_RUNNER } from '../bundle-paths.js';
import { KpngIpvsChild, type KubeProxyMode } from './kpng-ipvs-child.js';

/**
 * Budget for a start in the VM on a loaded host (a budget, not an assertion): the first cell's
 * compat kube-proxy took 328 s to its first sync at host load ~45 and over 360 s at ~27 (2026-11-28).
 */
const START_BUDGET_MS = 540_000;
/** A new ClusterIP connection this often, through each swap. */
const PROBE_INTERVAL_MS = 250;
/** Traffic kept on after kpng's first sync, so that connections through its rules alone are counted too. */
const AFTER_SYNC_MS = 3_000;
/**
 * Upstream ipvs mode's own chains (pkg/proxy/ipvs; its iptables mode has none of these, while
 * KUBE-PROXY-FIREWALL is both modes': iptables mode takes it over in place).
 */
const IPVS_MODE_CHAINS = [
  'KUBE-NODE-PORT',
  'KUBE-LOAD-BALANCER',
  'KUBE-SOURCE-RANGES-FIREWALL',
  'KUBE-IPVS-FILTER',
  'KUBE-IPVS-OUT-FILTER',
];
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const NODE_PORT = 30081;
/** The ipvs cell's NodePort Service (no endpoints: its traffic is rejected; only its virtual servers are looked at). */
const NODE_PORT_SERVICE = {
  kind: 'Service',
  apiVersion: 'v1',
  metadata: { name: 'np', namespace: 'default' },
  spec: {
    type: 'NodePort',
    clusterIP: '198.19.0.11',
    clusterIPs: ['198.19.0.11'],
    ipFamilies: ['IPv4'],
    ports: [{ name: 'http', protocol: 'TCP', port: SERVICE_PORT, targetPort: ECHO_PORT, nodePort: NODE_PORT }],
  },
};
const suiteStarted = Date.now();

/** Each failed connection's start from kpng's start and from its first sync, then kpng's log. */
function failureTimeline(result: SteadyResult, started: number, synced: number, logs: string): string {
  const at = result.failures.map(
    (f) =>
      `${f.error} at +${f.at - started} ms from the start, ${f.at - synced >= 0 ? '+' : ''}${f.at - synced} ms from the first sync`,
  );
  return [`${result.failures.length} failed of ${result.attempts}:`, ...at, '--- kube-proxy log ---', logs].join('\n');
}
/** A progress line with the guest seconds since the file started (where the VM's time goes). */
const step = (what: string): void =>
  console.log(`SWAP-STEP +${((Date.now() - suiteStarted) / 1000).toFixed(1)} s ${what}`);

describe('swap: upstream ipvs mode <-> kube-proxy (kpng) (VM, kernel 6.1)', () => {
  let lab: Lab;
  let server: FakeApiServer;
  let kubeconfig: LabKubeconfig;
  const ns = () => lab.node.namespace;

  // Each of these is one process in the node namespace (a shell running the tools): under
  // emulation a process started from the test's Node costs more than the tools it runs.
  /** A bound for one such shell under emulation on a loaded host (the exec default is 10 s). */
  const SHELL = { timeoutMs: 120_000 } as const;

  /** What upstream ipvs mode's start programs (its sets, chains, `kube-ipvs0`, virtual server, `vs.conntrack`). */
  async function loadUpstreamIpvs(): Promise<void> {
    step('loading upstream ipvs mode state');
    const podB = lab.pod('pod-b').ipv4;
    const script = [
      `ipset restore <<'SETS'\n${ipsetRestore(CLUSTER_IP, SERVICE_PORT, podB, ECHO_PORT)}SETS`,
      `iptables-restore --noflush <<'RULES'\n${iptablesRestore('198.18.0.0/17')}RULES`,
      ...ipvsCommands(CLUSTER_IP, SERVICE_PORT, [podB], ECHO_PORT).map((argv) => argv.join(' ')),
      'sysctl -q -w net.ipv4.vs.conntrack=1', // as upstream's start (exists once ip_vs is loaded)
    ].join('\n'); // `sh -e`: the first command that fails ends it (and the test)
    await ns().exec(['sh', '-ec', script], SHELL);
  }

  interface NodeState {
    /** KUBE-* chains (IPv4 and IPv6, but kubelet's KUBE-FIREWALL). */
    readonly chains: string[];
    readonly ipsets: string[];
    /** kube-proxy's or kpng's nftables tables. */
    readonly tables: string[];
    /** `ipvsadm -Ln`'s virtual server lines and real server lines (not its header lines). */
    readonly virtual: string[];
    readonly real: string[];
    readonly dummy: boolean;
  }

  /** Every mode's objects in the node namespace, read in one process. */
  async function nodeState(): Promise<NodeState> {
    const script = [
      'iptables-save; ip6tables-save',
      'echo @@ipset; ipset list -n',
      'echo @@nft; nft list tables',
      'echo @@ipvs; ipvsadm -Ln',
      'echo @@link; ip -o link show kube-ipvs0 2>/dev/null || true',
    ].join('\n');
    const out = (await ns().exec(['sh', '-ec', script], SHELL)).stdout;
    const [saved = '', ipset = '', nft = '', ipvs = '', link = ''] = out.split(/^@@\w+$/m);
    const lines = (text: string) => text.split('\n').filter((l) => l.trim() !== '');
    return {
      chains: [...saved.matchAll(/^:(KUBE-\S+)/gm)].map((m) => m[1]!).filter((c) => c !== 'KUBE-FIREWALL'),
      ipsets: lines(ipset).filter((n) => n.startsWith('KUBE-')),
      tables: lines(nft).filter((t) => /(kube-proxy|kpng)/.test(t)),
      virtual: lines(ipvs).filter((l) => /^(TCP|UDP|SCTP|FWM)\s/.test(l)),
      real: lines(ipvs).filter((l) => /^\s+->\s+\d/.test(l)),
      dummy: link.includes('kube-ipvs0'),
    };
  }
  const EMPTY: NodeState = { chains: [], ipsets: [], tables: [], virtual: [], real: [], dummy: false };

  /** The compat `kube-proxy` with `args`, run to its end against the lab's node namespace. */
  async function kubeProxy(args: readonly string[]): Promise<{ code: number | null; output: string; stdout: string }> {
    step(`kube-proxy ${args.join(' ')}`);
    let output = '';
    let stdout = '';
    const child = spawnChild([process.execPath, KUBE_PROXY_RUNNER, ...args], {
      env: { KPNG_NETNS: ns().name },
      onStdout: (c) => void ((output += c.toString()), (stdout += c.toString())),
      onStderr: (c) => void (output += c.toString()),
    });
    return { code: (await child.exited).exitCode, output, stdout };
  }

  /** `kube-proxy --cleanup` (the compat binary) run to its end in the lab's node namespace. */
  const cleanup = () => kubeProxy(['--cleanup']);

  /** `--cleanup` exits 0 and leaves nothing of any mode. */
  async function cleanupLeavesNothing(): Promise<void> {
    const done = await cleanup();
    expect(done.code, done.output).toBe(0);
    expect(await nodeState(), 'no chain, set, table, virtual or real server, kube-ipvs0').toEqual(EMPTY);
  }

  const probeOnce = (): Promise<SteadyResult> =>
    probeSteadily(lab.pod('pod-a').namespace, {
      ip: CLUSTER_IP,
      port: SERVICE_PORT,
      durationMs: 1_000,
      intervalMs: 200,
    });

  beforeAll(async () => {
    lab = await Lab.create({ pods: ['pod-a', 'pod-b'] });
    await lab.startEcho('pod-b', [ECHO_PORT]);
    server = await FakeApiServer.start();
    server.create(node({ ipv4Only: true }));
    server.create(service());
    server.create(endpointSlice([lab.pod('pod-b')]));
    kubeconfig = await kubeconfigFor(server);
    step('lab and API server ready');
  });

  /** The Done-when table's rows (as the host matrix's SWAP-TABLE lines; test/vm.test.ts prints them on the host). */
  const table: string[] = [];

  afterAll(async () => {
    console.log(
      [
        'SWAP-TABLE cell | failed new connections | left after the first sync | --cleanup exit | rollback to upstream: failed connections',
        ...table.map((row) => `SWAP-TABLE ${row}`),
      ].join('\n'),
    );
    await lab?.delete();
    await kubeconfig?.remove();
    await server?.close();
  });

  it("--cleanup on upstream ipvs mode's state exits 0 and removes its chains, ipsets, virtual servers and kube-ipvs0", async () => {
    await loadUpstreamIpvs();
    const before = await nodeState();
    expect(before.chains).toEqual(
      expect.arrayContaining(['KUBE-IPVS-FILTER', 'KUBE-NODE-PORT', 'KUBE-PROXY-FIREWALL']),
    );
    expect(before.ipsets.sort()).toEqual(IPVS_MODE_IPSETS.map(([name]) => name).sort());
    expect(before.real).toHaveLength(1);
    expect(before.dummy).toBe(true);
    await cleanupLeavesNothing();
  }, 300_000);

  /** True while the node holds upstream ipvs mode's state (the rollback case leaves it for the next cell). */
  let upstreamLoaded = false;

  for (const mode of ['ipvs', 'nftables', 'iptables'] as const satisfies readonly KubeProxyMode[]) {
    it(`ipvs -> ${mode}: no failed connection, upstream's rest gone after the first sync, then --cleanup exits 0 and leaves nothing`, async () => {
      try {
        await swapCell(mode);
      } catch (error) {
        // A failed cell still leaves the node empty for the next one.
        await cleanup().catch(() => undefined);
        upstreamLoaded = false;
        throw error;
      }
    }, 900_000); // a start, the traffic and a clean-up in the VM (a budget, not an assertion)
  }

  /**
   * In the ipvs cell, kpng's ipvs mode running: (1) with `nodePortAddresses` unset the NodePort has a
   * virtual server on exactly the node namespace's IPv4 addresses but kube-ipvs0's and loopback
   * addresses (the lab's pod gateway on lo counts, as in upstream's NodeIPs); (2) `kube-proxy explain
   * default/web` finds the Service through the API server (IPVS keeps no names) and prints its
   * virtual server with the cell's traffic in its counters, its real server, its kube-ipvs0 address
   * and its filter element, and nothing of the NodePort Service.
   */
  async function nodePortsAndExplain(left: NodeState): Promise<void> {
    const interfaces = (await ns().exec(['ip', '-o', '-4', 'addr', 'show'], SHELL)).stdout
      .split('\n')
      .map((line) => /^\d+:\s+(\S+)\s+inet\s+([\d.]+)\//.exec(line))
      .filter((m): m is RegExpExecArray => m !== null && m[1] !== 'kube-ipvs0' && !m[2]!.startsWith('127.'))
      .map((m) => m[2]!);
    const nodePorts = left.virtual
      .map((line) => new RegExp(`^TCP\\s+([\\d.]+):${NODE_PORT}\\s`).exec(line)?.[1])
      .filter((ip) => ip !== undefined);
    expect(interfaces.length).toBeGreaterThan(0);
    expect(nodePorts.sort()).toEqual([...new Set(interfaces)].sort());

    const explained = await kubeProxy([
      'explain',
      'default/web',
      '--proxy-mode=ipvs',
      `--kubeconfig=${kubeconfig.path}`,
    ]);
    expect(explained.code, explained.output).toBe(0);
    const out = explained.stdout;
    const clusterIp = CLUSTER_IP.replaceAll('.', '\\.');
    const vs = new RegExp(
      `\\[(\\d+) packets, \\d+ bytes\\] TCP ${clusterIp}:${SERVICE_PORT} rr \\(ClusterIP, \\d+ connections`,
    ).exec(out);
    expect(vs, out).not.toBeNull();
    expect(Number(vs![1]), out).toBeGreaterThan(0); // the traffic of this cell went through it
    expect(out).toContain(`-> ${lab.pod('pod-b').ipv4}:${ECHO_PORT} Masq weight 1`);
    expect(out).toMatch(new RegExp(`kube-ipvs0 addresses:\\n  ${clusterIp}\\n`));
    expect(out).toContain(`@service_ports { ${CLUSTER_IP} . tcp . ${SERVICE_PORT} }`);
    expect(out).not.toContain(`:${NODE_PORT} `); // the NodePort Service's virtual servers are not web's
    console.log(`SWAP-EXPLAIN ipvs default/web\n${out}`);
  }

  async function swapCell(mode: KubeProxyMode): Promise<void> {
    const cellStarted = Date.now();
    if (!upstreamLoaded) await loadUpstreamIpvs();
    upstreamLoaded = false;
    if (mode === 'ipvs') {
      // Upstream's start sets these; kpng's start in ipvs mode must set them again (its privileged set-up).
      await ns().sysctl({ 'net.ipv4.vs.expire_nodest_conn': 0, 'net.ipv4.vs.expire_quiescent_template': 0 });
      // A NodePort Service without endpoints for this cell: where ipvs mode puts NodePorts by default.
      server.create(NODE_PORT_SERVICE);
    }
    const child = new KpngIpvsChild({
      program: 'kube-proxy',
      mode,
      netns: ns().name,
      source: { kubeconfig: kubeconfig.path },
      nodeName: NODE_NAME,
      syncPeriod: '3s',
    });
    // Traffic from before the start until AFTER_SYNC_MS after kpng's first sync and its removal of
    // upstream's rest.
    const traffic = startSteadily(lab.pod('pod-a').namespace, {
      ip: CLUSTER_IP,
      port: SERVICE_PORT,
      intervalMs: PROBE_INTERVAL_MS,
    });
    let result: SteadyResult | undefined;
    let row = '';
    const started = Date.now();
    try {
      step(`kube-proxy ${mode} starts`);
      child.start();
      // Logged inside kpng's first successful sync, right after its rules went in (platform-cleanup.ts).
      await child.waitFor(
        'the first sync and the removal of upstream ipvs mode leftovers',
        async () => child.logs().includes('removed the leftovers of other proxy modes'),
        START_BUDGET_MS,
      );
      const synced = Date.now();
      step(`kube-proxy ${mode} synced and removed upstream's rest`);
      await sleep(AFTER_SYNC_MS);
      result = await traffic.stop();
      // (a), with each failure's time from kpng's start and from its first sync and the log lines
      // around it: a data-path gap sits at the sync, a starved guest anywhere.
      expect(result.failures, failureTimeline(result, started, synced, child.logs())).toEqual([]);
      expect(result.attempts).toBeGreaterThan(0);
      expect(result.servers).toEqual(['pod-b']);
      expect(child.logs()).not.toContain('could not remove');
      const left = await nodeState(); // (b)
      expect(left.ipsets).toEqual([]);
      expect(left.tables).toEqual(mode === 'iptables' ? [] : expect.any(Array)); // the nftables cell's table too
      if (mode === 'iptables') expect(left.chains.filter((c) => IPVS_MODE_CHAINS.includes(c))).toEqual([]);
      else expect(left.chains).toEqual([]);
      if (mode === 'ipvs') {
        expect(left.virtual.join('\n')).toContain(`${CLUSTER_IP}:${SERVICE_PORT}`); // taken over in place
        expect(left.real).toHaveLength(1);
        expect(left.dummy).toBe(true);
        const names = [
          'net.ipv4.vs.conntrack',
          'net.ipv4.vs.expire_nodest_conn',
          'net.ipv4.vs.expire_quiescent_template',
        ];
        const values = (await ns().exec(['sysctl', '-n', ...names], SHELL)).stdout.trim().split('\n');
        expect(Object.fromEntries(names.map((n, i) => [n, values[i]]))).toEqual(
          Object.fromEntries(names.map((n) => [n, '1'])),
        );
        await nodePortsAndExplain(left);
      } else {
        expect([left.virtual, left.real, left.dummy]).toEqual([[], [], false]);
      }
      const leftovers = left.ipsets.length + left.chains.filter((c) => IPVS_MODE_CHAINS.includes(c)).length;
      row = `VM: ipvs -> ${mode} | ${result.failures.length} of ${result.attempts} | ${leftovers} of upstream's ipsets and ipvs-mode chains`;
      console.log(
        `SWAP-CELL ipvs -> ${mode} | ${result.failures.length} failed of ${result.attempts} | ` +
          `upstream leftovers after first sync ${leftovers} | first sync ${synced - started} ms after start`,
      );
    } finally {
      if (result === undefined) await traffic.stop().catch(() => undefined);
      await child.stop();
      if (mode === 'ipvs') server.delete(NODE_PORT_SERVICE);
    }

    if (mode === 'nftables') {
      // No --cleanup here (the host's matrix checks it after nftables mode): upstream ipvs mode's
      // state is built on kpng's table left in force, as a rollback without the runbook's step
      // would leave the node, and the iptables cell must remove both.
      await loadUpstreamIpvs();
      upstreamLoaded = true;
      table.push(`${row} | none (the iptables cell's start: upstream's state on kpng's table) | -`);
      console.log(`SWAP-CELL ipvs -> ${mode} | cell ${Date.now() - cellStarted} ms`);
      return;
    }
    await cleanupLeavesNothing(); // (c)
    let rollback = '-';
    if (mode === 'ipvs') {
      // (d) The rollback: upstream ipvs mode's start on the node kpng's --cleanup left serves the
      // ClusterIP; that state is the next cell's start.
      await loadUpstreamIpvs();
      upstreamLoaded = true;
      const back = await probeOnce();
      expect(back.failures).toEqual([]);
      expect(back.attempts).toBeGreaterThan(0);
      rollback = `${back.failures.length} of ${back.attempts}`;
    }
    table.push(`${row} | 0 | ${rollback}`);
    console.log(`SWAP-CELL ipvs -> ${mode} | --cleanup exit 0 | cell ${Date.now() - cellStarted} ms`);
  }
});
