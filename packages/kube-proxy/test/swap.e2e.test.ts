// The swap matrix (issue 27): kpng takes over a node that upstream kube-proxy programmed, and
// hands it back. Each cell loads what upstream left in the kernel into the lab's node namespace
// (its real iptables-v1.28.7 and nftables-v1.30.3 dumps from ../shared/reference/upstream-rules,
// copied under test/swap/upstream; upstream ipvs mode's chains and ipsets from its source), serves
// the Services those rules came from, and starts the compat kube-proxy on it while a pod opens a
// new connection to a ClusterIP every 50 ms. It asserts:
//   (a) no new connection fails through the swap,
//   (b) after kpng's first sync no rule of the old mode is hooked in and every leftover is gone
//       (or, same mode, taken over in place: no stale chain left behind),
//   (c) `kube-proxy --cleanup` exits 0 and leaves nothing of any mode,
//   (d) the rollback: upstream's rule shape loaded again after that `--cleanup` (what upstream's
//       start programs) serves the ClusterIP with real packets.
// Upstream ipvs mode's virtual servers and kube-ipvs0 need IPVS (the lab's VM); here its cells
// hold its iptables chains and ipsets, which carry no Service traffic without IPVS, so (a) and (d)
// are not asked of them.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import {
  FakeApiServer,
  kernelE2e,
  kubeconfigFor,
  Lab,
  probeSteadily,
  sweepLeftovers,
  type LabKubeconfig,
} from '@kpng/lab';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { ipsetRestore, iptablesRestore } from '@kpng/lab/fault';
import { main } from '../src/index.js';
import { legacyIptablesPath, type LegacyIptablesPath } from './fault/legacy-iptables-path.js';
import { freePort } from './free-port.js';
import { EMPTY, nodeState } from './swap/node-state.js';

const e2e = await kernelE2e('kube-proxy swap matrix');
const UPSTREAM = new URL('./swap/upstream/', import.meta.url).pathname;
const NODE = 'ho-node-a'; // the node the dumps were taken on
const ECHO_PORT = 8080;

type Upstream = 'iptables-nft' | 'iptables-legacy' | 'nftables' | 'ipvs';
type Kpng = 'nftables' | 'iptables-nft' | 'iptables-legacy';

interface KubeObject {
  [key: string]: unknown;
  kind: string;
  metadata: { name: string; namespace?: string; resourceVersion?: string; uid?: string };
  spec?: { clusterIP?: string };
}

describe.skipIf(!e2e.run)('swap matrix: upstream kube-proxy -> kpng -> upstream', () => {
  let lab: Lab;
  let server: FakeApiServer;
  let kubeconfig: LabKubeconfig;
  let dir: string;
  let legacy: LegacyIptablesPath;
  const table: string[] = [];

  /** The ClusterIP of the dump's `basic` Service (ready endpoints 198.18.1.11-12 here, 198.18.2.11-12 remote). */
  let basicIp: Record<'iptables' | 'nftables', string>;

  async function objects(dump: 'iptables' | 'nftables'): Promise<KubeObject[]> {
    const list = parse(await readFile(join(UPSTREAM, dump, 'objects.yaml'), 'utf8')) as { items: KubeObject[] };
    return list.items.map((o) => {
      const { resourceVersion: _rv, uid: _uid, ...metadata } = o.metadata;
      return { ...o, metadata };
    });
  }

  beforeAll(async () => {
    await sweepLeftovers();
    // The dumps' endpoints: 198.18.1.11-13 on this node (pa1-pa3), 198.18.2.11-12 on the other (rb1, rb2).
    lab = await Lab.create({ pods: ['pcli', 'pa1', 'pa2', 'pa3'], remotePods: ['rb0', 'rb1', 'rb2'] });
    await Promise.all(['pa1', 'pa2', 'pa3', 'rb1', 'rb2'].map((pod) => lab.startEcho(pod, [ECHO_PORT])));
    // Both dumps' Services are the same objects but for their ClusterIPs: the iptables one's are served.
    const [ipt, nft] = [await objects('iptables'), await objects('nftables')];
    const basic = (list: KubeObject[]) => list.find((o) => o.kind === 'Service' && o.metadata.name === 'basic')!;
    basicIp = { iptables: basic(ipt).spec!.clusterIP!, nftables: basic(nft).spec!.clusterIP! };
    server = await FakeApiServer.start();
    server.create({
      kind: 'Node',
      apiVersion: 'v1',
      metadata: { name: NODE, labels: { 'kubernetes.io/hostname': NODE } },
      spec: { podCIDR: '198.18.1.0/24', podCIDRs: ['198.18.1.0/24'] },
      status: { addresses: [{ type: 'InternalIP', address: '198.18.255.1' }] },
    });
    kubeconfig = await kubeconfigFor(server);
    dir = await mkdtemp(join(tmpdir(), 'kpng-swap-'));
    legacy = await legacyIptablesPath();
    // The dumps' ClusterIPs differ: each cell serves the objects of the dump it starts from.
    servedSets = { iptables: ipt, nftables: nft };
  }, 120_000);

  afterAll(async () => {
    console.log(
      [
        'SWAP-TABLE cell | failed new connections | left after the first sync | --cleanup exit | rollback to upstream: failed connections, --cleanup exit',
        ...table.map((row) => `SWAP-TABLE ${row}`),
      ].join('\n'),
    );
    await lab?.delete();
    await server?.close();
    await kubeconfig?.remove();
    await legacy?.remove();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  let served: KubeObject[] = [];
  let servedSets: Record<'iptables' | 'nftables', KubeObject[]>;

  function serve(dump: 'iptables' | 'nftables'): void {
    for (const o of served) server.delete(o);
    served = servedSets[dump];
    for (const o of served) server.create(o);
  }

  const ns = () => lab.node.namespace;

  async function loadUpstream(upstream: Upstream): Promise<void> {
    if (upstream === 'nftables') {
      await ns().exec(['nft', '-f', join(UPSTREAM, 'nftables', 'nft-list-ruleset.txt')]);
    } else if (upstream === 'ipvs') {
      await ns().exec(['ipset', 'restore'], { input: ipsetRestore(basicIp.iptables, 80, '198.18.1.11', ECHO_PORT) });
      await ns().exec(['iptables-nft-restore', '--noflush'], { input: iptablesRestore('198.18.0.0/17') });
    } else {
      const flavour = upstream === 'iptables-legacy' ? 'legacy' : 'nft';
      for (const [tool, file] of [
        [`iptables-${flavour}-restore`, 'iptables-save.txt'],
        [`ip6tables-${flavour}-restore`, 'ip6tables-save.txt'],
      ] as const)
        await ns().exec([tool], { input: await readFile(join(UPSTREAM, 'iptables', file), 'utf8') });
    }
  }

  /** kube-proxy (kpng) with a config file; `legacyPath` runs it with the -legacy tools as `iptables`. */
  async function kubeProxy(mode: 'nftables' | 'iptables', args: string[], legacyPath: boolean) {
    const metricsPort = await freePort();
    const configPath = join(dir, `config-${mode}.yaml`);
    await writeFile(
      configPath,
      [
        'apiVersion: kubeproxy.config.k8s.io/v1alpha1',
        'kind: KubeProxyConfiguration',
        `mode: ${mode}`,
        'clientConnection:',
        `  kubeconfig: ${kubeconfig.path}`,
        `metricsBindAddress: 127.0.0.1:${metricsPort}`,
        'healthzBindAddress: ""',
        'clusterCIDR: 198.18.0.0/17',
        'iptables: {minSyncPeriod: 100ms}',
        'nftables: {minSyncPeriod: 100ms}',
        'conntrack: {maxPerCore: 0}',
        '',
      ].join('\n'),
    );
    const path = process.env['PATH'] ?? '';
    // In process: the iptables tools kpng runs are those on this process's PATH.
    if (legacyPath) process.env['PATH'] = `${legacy.dir}${delimiter}${path}`;
    const stop = new AbortController();
    let logs = '';
    const exit = main(
      ['--config', configPath, `--hostname-override=${NODE}`, ...args],
      { KPNG_NETNS: ns().name },
      { stdout: () => {}, stderr: (t) => void (logs += t), signal: stop.signal, setOomScoreAdj: async () => {} },
    ).finally(() => {
      if (legacyPath) process.env['PATH'] = path;
    });
    running.add(stop);
    return { exit, stop: () => stop.abort(), logs: () => logs };
  }

  async function cleanup(): Promise<number> {
    const k = await kubeProxy('nftables', ['--cleanup'], false);
    return k.exit;
  }

  // A failed cell leaves its state: the next one starts from a clean node all the same.
  afterEach(async () => {
    for (const stop of running) stop.abort();
    running.clear();
    await cleanup();
  });
  const running = new Set<AbortController>();

  const CELLS: [Upstream, Kpng][] = [
    ['iptables-nft', 'nftables'],
    ['iptables-nft', 'iptables-nft'],
    ['iptables-legacy', 'iptables-legacy'],
    ['iptables-legacy', 'nftables'],
    ['nftables', 'nftables'],
    ['nftables', 'iptables-nft'],
    ['nftables', 'iptables-legacy'],
    ['ipvs', 'nftables'],
    ['ipvs', 'iptables-nft'],
    ['ipvs', 'iptables-legacy'],
  ];

  it.each(CELLS)(
    'upstream %s -> kpng %s -> upstream',
    async (upstream, kpng) => {
      expect(await nodeState(ns())).toEqual(EMPTY);
      const dump = upstream === 'nftables' ? 'nftables' : 'iptables';
      serve(dump);
      await loadUpstream(upstream);
      const before = await nodeState(ns());
      expect(before.hooks.length + before.tables.length).toBeGreaterThan(0);
      const ip = basicIp[dump];
      const carries = upstream !== 'ipvs'; // without IPVS, upstream ipvs mode's leftovers serve nothing

      // (a) kpng starts while a pod connects steadily.
      const traffic = carries
        ? probeSteadily(lab.pod('pcli').namespace, { ip, port: 80, intervalMs: 50, durationMs: 8_000 })
        : undefined;
      const k = await kubeProxy(kpng === 'nftables' ? 'nftables' : 'iptables', [], kpng === 'iptables-legacy');
      for (let i = 0; i < 300 && !k.logs().includes('removed the leftovers of other proxy modes'); i++)
        await new Promise((resolve) => setTimeout(resolve, 100));
      expect(k.logs(), 'the first sync and the leftovers removal').toContain(
        'removed the leftovers of other proxy modes',
      );
      expect(k.logs()).not.toContain('could not remove');
      const result = await traffic;
      const failures = result?.failures ?? [];
      expect(failures, JSON.stringify(failures.slice(0, 5))).toEqual([]);
      if (result) expect(new Set(result.servers)).toEqual(new Set(['pa1', 'pa2', 'rb1', 'rb2']));

      // (b) nothing of the old mode hooked in; leftovers gone or taken over in place.
      const after = await nodeState(ns());
      const flavour = kpng === 'iptables-legacy' ? 'legacy' : 'nft';
      if (kpng === 'nftables') {
        expect(after, JSON.stringify(after)).toEqual({ ...EMPTY, tables: ['ip kube-proxy'] });
        const { stdout } = await ns().exec(['nft', 'list', 'table', 'ip', 'kube-proxy']);
        // upstream's per-Service and per-endpoint chains (kpng has none): taken over, nothing stale
        const stale = stdout.match(/chain (service|endpoint|external|firewall)-[A-Z0-9]{8}-\S*\/\S*/g) ?? [];
        expect(stale, JSON.stringify(stale)).toEqual([]);
      } else {
        expect(after.tables).toEqual([]);
        expect(after.ipsets).toEqual([]);
        const foreign = after.chains.filter((c) => !c.startsWith(`${flavour} `));
        expect(foreign, JSON.stringify(foreign)).toEqual([]);
        expect(
          after.chains.filter((c) => /KUBE-(NODE-PORT|LOAD-BALANCER|SOURCE-RANGES-FIREWALL|IPVS)/.test(c)),
        ).toEqual([]);
        // every service chain in use: no stale chain of upstream's left unreferenced
        const { stdout } = await ns().exec([`iptables-${flavour}-save`, '-t', 'nat']);
        const defined = [...stdout.matchAll(/^:(KUBE-(?:SVC|SVL|EXT|FW|SEP)-\w+)/gm)].map((m) => m[1]!);
        const stale = defined.filter((c) => !stdout.includes(`-j ${c}`));
        expect(stale).toEqual([]);
      }
      const leftovers = after.chains.length + after.tables.length + after.ipsets.length;

      // (c) kpng stops; its --cleanup leaves nothing of any mode.
      k.stop();
      expect(await k.exit, k.logs()).toBe(0);
      const cleanupExit = await cleanup();
      expect(cleanupExit).toBe(0);
      expect(await nodeState(ns())).toEqual(EMPTY);
      const row =
        `${upstream} -> ${kpng} | ${result ? `${failures.length} of ${result.attempts}` : 'no traffic (no IPVS here)'} | ` +
        `${after.hooks.filter((h) => !h.startsWith(`${flavour} `) || kpng === 'nftables').length} hooks of the old mode, ` +
        `${leftovers} kube objects (kpng's own) | ${cleanupExit}`;

      // (d) the rollback: upstream's rules again serve the ClusterIP.
      if (carries) {
        await loadUpstream(upstream);
        const back = await probeSteadily(lab.pod('pcli').namespace, {
          ip,
          port: 80,
          intervalMs: 50,
          durationMs: 1_000,
        });
        expect(back.failures).toEqual([]);
        expect(back.attempts).toBeGreaterThan(0);
        const backCleanup = await cleanup();
        expect(backCleanup).toBe(0);
        table.push(`${row} | ${back.failures.length} of ${back.attempts}, ${backCleanup}`);
      } else {
        await loadUpstream(upstream);
        const backCleanup = await cleanup();
        expect(backCleanup).toBe(0);
        table.push(`${row} | no traffic, ${backCleanup}`);
      }
      expect(await nodeState(ns())).toEqual(EMPTY);
    },
    120_000,
  );
});
