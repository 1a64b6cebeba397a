// The compat binary end to end: `main()` in process, with a KubeProxyConfiguration file and
// flags, watching the fake API server and programming the nft backend inside the lab's node
// namespace (KPNG_NETNS). A pod's TCP connection to the ClusterIP must reach the endpoint; the
// status servers must answer like kube-proxy's; `--cleanup` must leave no kpng (or upstream
// kube-proxy) table behind and nobody else's table touched.
import { appendFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  FakeApiServer,
  kernelE2e,
  kubeconfigFor,
  Lab,
  sweepLeftovers,
  type LabKubeconfig,
  type LabPod,
  type ProbeResult,
} from '@kpng/lab';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../src/index.js';
import { CLUSTER_IP, ECHO_PORT, endpointSlice, node, NODE_NAME, service, SERVICE_PORT } from '@kpng/lab/fault';
import { freePort } from './free-port.js';

const e2e = await kernelE2e('kube-proxy compat binary');

/** Bounded polling: every probe has a 1 s timeout, at most `attempts` of them. */
async function probeUntil(
  lab: Lab,
  from: LabPod,
  accept: (r: ProbeResult) => boolean,
  attempts = 30,
): Promise<ProbeResult> {
  let last: ProbeResult | undefined;
  for (let i = 0; i < attempts; i++) {
    last = await lab.probe(from, { proto: 'tcp', ip: CLUSTER_IP, port: SERVICE_PORT, timeoutMs: 1_000 });
    if (accept(last)) return last;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`no accepted answer after ${attempts} probes; last: ${JSON.stringify(last)}`);
}

async function tables(lab: Lab): Promise<string[]> {
  const { stdout } = await lab.node.namespace.exec(['nft', 'list', 'tables']);
  return stdout
    .trim()
    .split('\n')
    .filter((line) => line !== '')
    .sort();
}

describe.skipIf(!e2e.run)('kube-proxy (kpng) in the lab', () => {
  let lab: Lab;
  let server: FakeApiServer;
  let kubeconfig: LabKubeconfig;
  let dir: string;
  let configPath: string;
  let env: NodeJS.ProcessEnv;
  let metricsPort: number;
  let healthzPort: number;
  const stop = new AbortController();
  let running: Promise<number>;
  let logs = '';
  const oomScoreAdj: number[] = [];

  beforeAll(async () => {
    await sweepLeftovers();
    lab = await Lab.create({ pods: ['pod-a', 'pod-b', 'pod-c'] });
    await Promise.all(['pod-b', 'pod-c'].map((pod) => lab.startEcho(pod, [ECHO_PORT])));
    server = await FakeApiServer.start();
    server.create(node());
    server.create(service());
    server.create(endpointSlice([lab.pod('pod-b')]));
    kubeconfig = await kubeconfigFor(server);
    [metricsPort, healthzPort] = [await freePort(), await freePort()];
    dir = await mkdtemp(join(tmpdir(), 'kpng-kube-proxy-'));
    configPath = join(dir, 'config.yaml');
    await writeFile(
      configPath,
      [
        'apiVersion: kubeproxy.config.k8s.io/v1alpha1',
        'kind: KubeProxyConfiguration',
        'mode: nftables',
        'clientConnection:',
        `  kubeconfig: ${kubeconfig.path}`,
        `metricsBindAddress: 127.0.0.1:${metricsPort}`,
        `healthzBindAddress: 127.0.0.1:${healthzPort}`,
        'detectLocalMode: ClusterCIDR',
        'clusterCIDR: 198.18.0.0/22,2001:db8::/46',
        'nftables:',
        '  minSyncPeriod: 100ms',
        '  syncPeriod: 30s',
        'conntrack:',
        '  maxPerCore: 0',
        '',
      ].join('\n'),
    );
    env = { KPNG_NETNS: lab.node.namespace.name };
    // The flag overrides the node name even with --config (and is lower-cased), as upstream.
    running = main(['--config', configPath, '--hostname-override=Lab-Node', '-v=2'], env, {
      setOomScoreAdj: async (value) => void oomScoreAdj.push(value), // not the test runner's own
      stdout: () => {},
      stderr: (text) => void (logs += text),
      signal: stop.signal,
    });
  });

  afterAll(async () => {
    stop.abort();
    await running?.catch(() => 1);
    await lab?.delete();
    await server?.close();
    await kubeconfig?.remove();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('programs the ClusterIP: a pod connects through it to the endpoint', async () => {
    const result = await probeUntil(lab, lab.pod('pod-a'), (r) => r.ok).catch((e: Error) => {
      throw new Error(`${e.message}\nkube-proxy logs:\n${logs}`);
    });
    expect(result).toMatchObject({ ok: true, server: 'pod-b', seenSource: lab.pod('pod-a').ipv4 });
    // Upstream's table names: `nft list table ip kube-proxy` runbooks keep working.
    expect(await tables(lab)).toEqual(['table ip kube-proxy', 'table ip6 kube-proxy']);
  });

  it("sets the conntrack timeouts in the namespace it programs (the lab node's, never the root one)", async () => {
    const read = async (name: string) =>
      (await lab.node.namespace.exec(['cat', `/proc/sys/net/netfilter/${name}`])).stdout.trim();
    expect(await read('nf_conntrack_tcp_timeout_established')).toBe('86400'); // kernel default: 432000
    expect(await read('nf_conntrack_tcp_timeout_close_wait')).toBe('3600');
    expect(oomScoreAdj).toEqual([-999]); // upstream's default, applied at start
  });

  it("--init-only does iptables mode's set-up in the namespace (route_localnet); a refused fatal sysctl stops it by name", async () => {
    const ns = lab.node.namespace;
    const read = async (path: string) => (await ns.exec(['cat', `/proc/sys/${path}`])).stdout.trim();
    await ns.sysctl({ 'net.ipv4.conf.all.route_localnet': 0 });
    const io = (out: { text: string }) => ({
      setOomScoreAdj: async () => {},
      stdout: () => {},
      stderr: (t: string) => void (out.text += t),
      signal: AbortSignal.abort(),
    });
    const ok = { text: '' };
    const args = ['--init-only', '--proxy-mode=iptables', '--hostname-override=lab-node'];
    expect(await main([...args, '--conntrack-max-per-core=0'], env, io(ok)), ok.text).toBe(0);
    expect(await read('net/ipv4/conf/all/route_localnet')).toBe('1');
    // nf_conntrack_max is read-only outside the root namespace: upstream's start fails there too.
    const refused = { text: '' };
    const code = await main([...args, '--conntrack-max-per-core=1', '--conntrack-min=3'], env, io(refused));
    expect(code).toBe(1);
    expect(refused.text).toMatch(/cannot set sysctl net\/netfilter\/nf_conntrack_max/);
  });

  it('answers /proxyMode, /configz and /healthz like kube-proxy', async () => {
    const mode = await fetch(`http://127.0.0.1:${metricsPort}/proxyMode`);
    expect(await mode.text()).toBe('nftables');
    const configz = (await (await fetch(`http://127.0.0.1:${metricsPort}/configz`)).json()) as Record<
      string,
      Record<string, unknown>
    >;
    expect(configz['kubeproxy.config.k8s.io']).toMatchObject({
      apiVersion: 'kubeproxy.config.k8s.io/v1alpha1',
      kind: 'KubeProxyConfiguration',
      mode: 'nftables',
      hostnameOverride: 'lab-node',
      clusterCIDR: '198.18.0.0/22,2001:db8::/46',
      nodePortAddresses: ['primary'],
      nftables: { minSyncPeriod: '100ms', syncPeriod: '30s', masqueradeBit: 14 },
    });
    const healthz = await fetch(`http://127.0.0.1:${healthzPort}/healthz`);
    expect(healthz.status).toBe(200);
    const metrics = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
    expect(metrics).toContain('kubeproxy_sync_proxy_rules_duration_seconds');
    expect(metrics).toMatch(/^kubernetes_build_info\{major="0",minor="1",git_version="v0\.1\.0",.*\} 1$/m);
  });

  it("posts upstream's Starting Event on its Node (events.k8s.io/v1)", async () => {
    for (let i = 0; i < 50 && server.objects('Event').length === 0; i++)
      await new Promise((resolve) => setTimeout(resolve, 100));
    expect(server.objects('Event')).toMatchObject([
      {
        metadata: { namespace: 'default' },
        regarding: { kind: 'Node', name: 'lab-node' },
        type: 'Normal',
        reason: 'Starting',
        action: 'StartKubeProxy',
        reportingController: 'kube-proxy',
      },
    ]);
  });

  it('follows an EndpointSlice change to the other pod', async () => {
    server.update(endpointSlice([lab.pod('pod-c')]));
    const result = await probeUntil(lab, lab.pod('pod-a'), (r) => r.ok && r.server === 'pod-c');
    expect(result.server).toBe('pod-c');
  });

  it("opens an ETP Local Service's health-check node port on loopback: KPNG_NETNS's node addresses are not this process's", async () => {
    const hcPort = await freePort();
    const lb = service();
    server.create({
      ...lb,
      metadata: { ...lb.metadata, name: 'web-local' },
      spec: {
        ...lb.spec,
        type: 'LoadBalancer',
        clusterIP: '198.19.0.20',
        clusterIPs: ['198.19.0.20'],
        externalTrafficPolicy: 'Local',
        healthCheckNodePort: hcPort,
        ports: [{ ...lb.spec.ports[0]!, nodePort: 30_080 }],
      },
    });
    const slice = endpointSlice([lab.pod('pod-b')]);
    server.create({
      ...slice,
      metadata: { ...slice.metadata, name: 'web-local-1', labels: { 'kubernetes.io/service-name': 'web-local' } },
    });
    let answer: Response | undefined;
    for (let i = 0; i < 50 && answer === undefined; i++)
      answer = await fetch(`http://127.0.0.1:${hcPort}/`).catch(async () => {
        await new Promise((resolve) => setTimeout(resolve, 100));
        return undefined;
      });
    expect(answer?.status, logs.slice(-2_000)).toBe(200);
    expect(await answer!.json()).toMatchObject({
      service: { namespace: 'default', name: 'web-local' },
      localEndpoints: 1,
    });
    // Before: the node's primary IP (198.18.255.1, the lab node's) at every sync, EADDRNOTAVAIL.
    expect(logs).not.toContain('failed to start service health check');
  });

  it("drops traffic to an unallocated ClusterIP inside the cluster's ServiceCIDRs, as upstream's nftables mode", async () => {
    const guarded = async () =>
      (await lab.node.namespace.exec(['nft', 'list', 'set', 'ip', 'kube-proxy', 'service-cidrs'])).stdout;
    // A route that delivers 198.19.0.99 to pod-b (which holds that address and echoes on it), so
    // only the guard's drop can stop a connection to it, not a missing route.
    const podB = lab.pod('pod-b');
    await podB.namespace.exec(['ip', 'addr', 'add', '198.19.0.99/32', 'dev', 'lo']);
    await lab.node.namespace.exec(['ip', 'route', 'add', '198.19.0.99/32', 'via', podB.ipv4]);
    const unallocated = () =>
      lab.probe(lab.pod('pod-a'), { proto: 'tcp', ip: '198.19.0.99', port: ECHO_PORT, timeoutMs: 500 });
    expect(await guarded()).not.toContain('198.19.0.0/16'); // no ServiceCIDR yet, and no configured range
    expect(await unallocated()).toMatchObject({ ok: true, server: 'pod-b' });

    server.create({
      kind: 'ServiceCIDR',
      apiVersion: 'networking.k8s.io/v1',
      metadata: { name: 'kubernetes' },
      spec: { cidrs: ['198.19.0.0/16', '2001:db8:5e::/64'] },
    });
    for (let i = 0; i < 50 && !(await guarded()).includes('198.19.0.0/16'); i++)
      await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await guarded()).toContain('198.19.0.0/16');
    expect(await unallocated()).toMatchObject({ ok: false, error: 'timeout' }); // dropped
    // The allocated ClusterIP still works.
    expect(await probeUntil(lab, lab.pod('pod-a'), (r) => r.ok)).toMatchObject({ ok: true });
  });

  it('--cleanup removes the kube-proxy and kpng tables and nothing else', async () => {
    stop.abort();
    expect(await running).toBe(0);
    const ns = lab.node.namespace;
    await ns.exec(['nft', 'add', 'table', 'ip', 'kpng']); // left by kpng's own program
    await ns.exec(['nft', 'add', 'table', 'inet', 'someone-else']);
    expect(await tables(lab)).toEqual([
      'table inet someone-else',
      'table ip kpng',
      'table ip kube-proxy',
      'table ip6 kube-proxy',
    ]);

    let out = '';
    const code = await main(['--config', configPath, '--cleanup'], env, {
      stdout: () => {},
      stderr: (t) => void (out += t),
    });
    expect(code, out).toBe(0);
    expect(await tables(lab)).toEqual(['table inet someone-else']);
    expect(
      (await lab.probe(lab.pod('pod-a'), { proto: 'tcp', ip: CLUSTER_IP, port: SERVICE_PORT, timeoutMs: 1_000 })).ok,
    ).toBe(false);
  });
  it('exits 1 when its --config file is written, as upstream (the DaemonSet restarts it)', async () => {
    let err = '';
    let started!: () => void;
    const isRunning = new Promise<void>((r) => (started = r));
    const again = main(['--config', configPath, '--hostname-override=lab-node'], env, {
      setOomScoreAdj: async () => {},
      stdout: () => {},
      stderr: (t) => void (err += t),
      onStarted: () => started(),
    });
    await Promise.race([isRunning, again]);
    await appendFile(configPath, '# edited\n');
    expect(await again, err).toBe(1);
    expect(err).toContain("Error: content of the proxy server's configuration file was updated\n");
  });
});

// A blank mode runs the iptables backend (as upstream on Linux); each mode, once its first sync is
// in, removes the other's leftovers (upstream's platformCleanup), so switching modes on a live node leaves no
// stale rules: blank (iptables) over an nftables leftover, then nftables over the iptables chains.
// The Node here is single-stack IPv4: nftables mode writes `ip kube-proxy` only. Last, nftables mode
// with the NetworkPolicy enforcer beside it.
describe.skipIf(!e2e.run)('kube-proxy (kpng) switching modes in the lab', () => {
  let lab: Lab;
  let server: FakeApiServer;
  let kubeconfig: LabKubeconfig;
  let dir: string;

  const iptablesSave = async (): Promise<string> => (await lab.node.namespace.exec(['iptables-save'])).stdout;

  /** Runs kube-proxy with `mode` (blank: no mode line) until it answers /proxyMode and the ClusterIP answers. */
  async function runUntilServed(
    mode: string,
    extra: readonly string[] = [],
  ): Promise<{ proxyMode: string; configPath: string; stop: () => Promise<number> }> {
    const metricsPort = await freePort();
    const configPath = join(dir, `config-${mode || 'blank'}${extra.length > 0 ? '-extra' : ''}.yaml`);
    await writeFile(
      configPath,
      [
        'apiVersion: kubeproxy.config.k8s.io/v1alpha1',
        'kind: KubeProxyConfiguration',
        ...(mode === '' ? [] : [`mode: ${mode}`]),
        'clientConnection:',
        `  kubeconfig: ${kubeconfig.path}`,
        `metricsBindAddress: 127.0.0.1:${metricsPort}`,
        'healthzBindAddress: ""',
        'clusterCIDR: 198.18.0.0/22',
        'iptables: {minSyncPeriod: 100ms}',
        'nftables: {minSyncPeriod: 100ms}',
        'conntrack: {maxPerCore: 0}',
        ...extra,
        '',
      ].join('\n'),
    );
    const stop = new AbortController();
    let logs = '';
    const running = main(
      ['--config', configPath, `--hostname-override=${NODE_NAME}`],
      { KPNG_NETNS: lab.node.namespace.name },
      {
        stdout: () => {},
        stderr: (text) => void (logs += text),
        signal: stop.signal,
      },
    );
    // The metrics server starts after the other mode's leftovers are removed (bounded polling).
    let proxyMode = '';
    for (let i = 0; i < 100 && proxyMode === ''; i++) {
      proxyMode = await fetch(`http://127.0.0.1:${metricsPort}/proxyMode`).then(
        (r) => r.text(),
        () => '',
      );
      if (proxyMode === '') await new Promise((resolve) => setTimeout(resolve, 100));
    }
    await probeUntil(lab, lab.pod('pod-a'), (r) => r.ok && r.server === 'pod-b').catch((e: Error) => {
      stop.abort();
      throw new Error(`${e.message}\nkube-proxy logs:\n${logs}`);
    });
    // The other modes' leftovers go right after the first sync (bounded polling).
    for (let i = 0; i < 100 && !logs.includes('removed the leftovers of other proxy modes'); i++)
      await new Promise((resolve) => setTimeout(resolve, 100));
    return { proxyMode, configPath, stop: () => (stop.abort(), running) };
  }

  beforeAll(async () => {
    await sweepLeftovers();
    lab = await Lab.create({ pods: ['pod-a', 'pod-b'] });
    await lab.startEcho('pod-b', [ECHO_PORT]);
    server = await FakeApiServer.start();
    server.create(node({ ipv4Only: true }));
    server.create(service());
    server.create(endpointSlice([lab.pod('pod-b')]));
    kubeconfig = await kubeconfigFor(server);
    dir = await mkdtemp(join(tmpdir(), 'kpng-kube-proxy-modes-'));
  });
  afterAll(async () => {
    await lab?.delete();
    await server?.close();
    await kubeconfig?.remove();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('a blank mode is iptables, and removes an nftables leftover', async () => {
    await lab.node.namespace.exec(['nft', 'add', 'table', 'ip', 'kpng']);
    const running = await runUntilServed('');
    expect(running.proxyMode).toBe('iptables');
    expect(await tables(lab)).not.toContain('table ip kpng');
    expect(await iptablesSave()).toMatch(/-A KUBE-SERVICES .*-d 198\.19\.0\.10\/32 .*-j KUBE-SVC-/);
    expect(await running.stop()).toBe(0);
  });

  it("nftables mode then removes the KUBE-* iptables chains, and writes only the node's family's table", async () => {
    expect(await iptablesSave()).toMatch(/KUBE-SVC-/);
    await lab.node.namespace.exec(['nft', 'add', 'table', 'ip6', 'kube-proxy']); // as a dual-stack run leaves it
    const running = await runUntilServed('nftables');
    expect(running.proxyMode).toBe('nftables');
    expect(await iptablesSave()).not.toMatch(/KUBE-(?!FIREWALL)/);
    // (iptables-nft's own tables stay from the iptables run)
    expect((await tables(lab)).filter((t) => t.includes('kube-proxy'))).toEqual(['table ip kube-proxy']);
    expect(await running.stop()).toBe(0);
  });

  it("enforceNetworkPolicy (kpng's --with-netpol): a policy judges the pod a ClusterIP connection reaches; --cleanup removes inet kpng-netpol", async () => {
    const running = await runUntilServed('nftables', ['enforceNetworkPolicy: true']);
    const podB = lab.pod('pod-b');
    server.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } });
    server.create({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { namespace: 'default', name: 'pod-b', labels: { app: 'b' } },
      spec: { nodeName: NODE_NAME, containers: [{ name: 'echo' }] },
      status: { phase: 'Running', podIPs: [{ ip: podB.ipv4 }, { ip: podB.ipv6 }] },
    });
    const denyAll = {
      apiVersion: 'networking.k8s.io/v1',
      kind: 'NetworkPolicy',
      metadata: { namespace: 'default', name: 'deny-b' },
      spec: { podSelector: { matchLabels: { app: 'b' } }, policyTypes: ['Ingress'] },
    };
    server.create(denyAll);
    await probeUntil(lab, lab.pod('pod-a'), (r) => !r.ok);
    server.delete(denyAll);
    expect(await probeUntil(lab, lab.pod('pod-a'), (r) => r.ok)).toMatchObject({ ok: true, server: 'pod-b' });
    expect(await running.stop()).toBe(0);
    expect(await tables(lab)).toContain('table inet kpng-netpol');
    let out = '';
    const code = await main(
      ['--config', running.configPath, '--cleanup'],
      { KPNG_NETNS: lab.node.namespace.name },
      { stdout: () => {}, stderr: (t) => void (out += t) },
    );
    expect(code, out).toBe(0);
    expect(await tables(lab)).not.toContain('table inet kpng-netpol');
  });
});
