import {
  allFeatures,
  clusterIPs,
  fullSyncRequest,
  nodeState,
  on,
  partialSyncRequest,
  RecordingLogger,
  type ServiceFixture,
} from '@kpng/core/testing';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { FakeIptables } from '../iptables/fake/fake-iptables.js';
import { servicePortChains } from '../render/names.js';
import { IptablesBackend } from './iptables-backend.js';

const full = fullSyncRequest;
const partial = partialSyncRequest;

function setup(
  options: {
    families?: ('IPv4' | 'IPv6')[];
    now?: () => number;
    flavour?: 'legacy' | 'nft';
    ruleLimit?: number;
    writeTimeoutMs?: number;
  } = {},
) {
  const fake = new FakeIptables({ flavour: options.flavour ?? 'legacy' });
  const log = new RecordingLogger();
  const registry = new Registry();
  const backend = new IptablesBackend({
    execer: fake,
    conntrack: false,
    metrics: registry,
    log,
    families: options.families ?? ['IPv4'],
    ...(options.now ? { now: options.now } : {}),
    ...(options.ruleLimit ? { nftFlavourRuleLimit: options.ruleLimit } : {}),
    ...(options.writeTimeoutMs ? { writeTimeoutMs: options.writeTimeoutMs } : {}),
  });
  return { fake, registry, backend, log };
}

/** The chains a restore input declares, in the nat table. */
function declaredNat(input: string): string[] {
  const nat = input.slice(input.indexOf('*nat'), input.indexOf('COMMIT', input.indexOf('*nat')));
  return nat
    .split('\n')
    .filter((l) => l.startsWith(':'))
    .map((l) => l.slice(1).split(' ')[0] as string);
}

const web = servicePortChains('default/web', { protocol: 'TCP' } as never);
const dns = servicePortChains('default/dns', { protocol: 'UDP' } as never);

function services(webPods: ('a' | 'b' | 'c' | 'd')[]): ServiceFixture[] {
  return allFeatures().map((s) => (s.name === 'web' ? { ...s, endpoints: on(...webPods) } : s));
}

describe('IptablesBackend over the fake iptables', () => {
  it('a first sync is one full restore with the canaries and the jumps from the built-in chains', async () => {
    const { fake, backend } = setup();
    await backend.sync(full(nodeState(allFeatures())));
    const restores = fake.restores.filter((r) => !r.test);
    expect(restores).toHaveLength(1);
    expect(restores[0]?.noflush).toBe(true);
    expect(restores[0]?.input).toMatch(/^\*mangle\n:KUBE-PROXY-CANARY - \[0:0\]\nCOMMIT$/m);
    expect(fake.chain('IPv4', 'nat', 'PREROUTING')).toEqual([
      '-A PREROUTING -m comment --comment "kubernetes service portals" -j KUBE-SERVICES',
    ]);
    expect(fake.chain('IPv4', 'filter', 'INPUT')).toHaveLength(4);
    expect(fake.chain('IPv4', 'nat', web.cluster)).toHaveLength(2);
  });

  it("upstream's nfacct counters: created at the first sync, matched by the INVALID drop and the localhost NodePort rules, read by /metrics", async () => {
    const { fake, backend, registry } = setup();
    await backend.sync(full(nodeState(allFeatures())));
    expect([...fake.nfacct.keys()].sort()).toEqual(['ct_state_invalid_dropped_pkts', 'localhost_nps_accepted_pkts']);
    expect(fake.chain('IPv4', 'filter', 'KUBE-FORWARD')).toContain(
      '-A KUBE-FORWARD -m conntrack --ctstate INVALID -m nfacct --nfacct-name ct_state_invalid_dropped_pkts -j DROP',
    );
    const nodePorts = fake.chain('IPv4', 'nat', 'KUBE-NODEPORTS') ?? [];
    const localhost = nodePorts.filter((r) => r.includes('-d 127.0.0.0/8'));
    expect(localhost.length).toBeGreaterThan(0);
    // Each counted rule sits right before its NodePort's own rule, with the same target.
    for (const rule of localhost) {
      expect(rule).toMatch(/ -m nfacct --nfacct-name localhost_nps_accepted_pkts -j KUBE-EXT-/);
      const next = nodePorts[nodePorts.indexOf(rule) + 1] ?? '';
      expect(next).toBe(
        rule.replace(' -d 127.0.0.0/8', '').replace(' -m nfacct --nfacct-name localhost_nps_accepted_pkts', ''),
      );
    }
    fake.nfacct.set('localhost_nps_accepted_pkts', 9);
    fake.nfacct.set('ct_state_invalid_dropped_pkts', 2);
    const text = await registry.metrics();
    expect(text).toMatch(/^kubeproxy_iptables_localhost_nodeports_accepted_packets_total 9$/m);
    expect(text).toMatch(/^kubeproxy_iptables_ct_state_invalid_dropped_packets_total 2$/m);
  });

  it("every kubeproxy_* metric the backend registers has upstream's [ALPHA] help", async () => {
    const { backend, registry } = setup();
    await backend.sync(full(nodeState(allFeatures())));
    const helps = (await registry.metrics()).split('\n').filter((l) => l.startsWith('# HELP kubeproxy_'));
    expect(helps.length).toBeGreaterThanOrEqual(8);
    expect(helps.filter((l) => !/^# HELP kubeproxy_\S+ \[ALPHA\] /.test(l))).toEqual([]);
  });

  it('without the nfacct tool the rules carry no nfacct match, a warning says so, and the sync succeeds', async () => {
    const fake = new FakeIptables();
    const log = new RecordingLogger();
    const noTool = {
      run: (argv: readonly string[], stdin: string, signal?: AbortSignal) =>
        argv[0] === 'nfacct'
          ? Promise.resolve({ exitCode: 127, stdout: '', stderr: 'nfacct: command not found' })
          : fake.run(argv, stdin, signal),
    };
    const backend = new IptablesBackend({ execer: noTool, conntrack: false, log, families: ['IPv4'] });
    await backend.sync(full(nodeState(allFeatures())));
    expect(fake.save('IPv4')).not.toContain('nfacct');
    expect(fake.chain('IPv4', 'filter', 'KUBE-FORWARD')).toContain(
      '-A KUBE-FORWARD -m conntrack --ctstate INVALID -j DROP',
    );
    expect(log.at('warn').map((r) => r.msg)).toEqual([
      expect.stringMatching(/^nfacct counter not available/),
      expect.stringMatching(/^nfacct counter not available/),
    ]);
  });

  it('a restarted backend sweeps chains it no longer wants and does not duplicate jumps', async () => {
    const { fake, backend } = setup();
    await backend.sync(full(nodeState(allFeatures())));
    const again = new IptablesBackend({
      execer: fake,
      conntrack: false,
      log: new RecordingLogger(),
      families: ['IPv4'],
    });
    await again.sync(full(nodeState(allFeatures().filter((s) => s.name !== 'web'))));
    expect(fake.chain('IPv4', 'nat', web.cluster)).toBeUndefined();
    expect(fake.chain('IPv4', 'filter', 'INPUT')).toHaveLength(4);
    expect(fake.chain('IPv4', 'nat', 'OUTPUT')).toHaveLength(1);
  });

  it("a partial sync writes the top-level chains and only the changed Service's chains", async () => {
    const { fake, backend } = setup();
    await backend.sync(full(nodeState(services(['a', 'c']))));
    await backend.sync(partial(nodeState(services(['a', 'c', 'd'])), ['web'], 2));
    const input = fake.restores.at(-1)?.input ?? '';
    const perService = declaredNat(input).filter((c) => /^KUBE-(SVC|SVL|EXT|FW|SEP)-/.test(c));
    expect(perService.filter((c) => c.startsWith('KUBE-SEP-'))).toHaveLength(3);
    expect(perService.filter((c) => !c.startsWith('KUBE-SEP-')).sort()).toEqual([web.external, web.cluster].sort());
    expect(declaredNat(input)).toEqual(
      expect.arrayContaining(['KUBE-SERVICES', 'KUBE-NODEPORTS', 'KUBE-POSTROUTING', 'KUBE-MARK-MASQ']),
    );
    expect(input).not.toMatch(/CANARY/);
    expect(fake.chain('IPv4', 'nat', web.cluster)?.filter((r) => r.includes('-j KUBE-SEP-'))).toHaveLength(3);
  });

  it('a partial sync skips the family in which the changed Services render as before', async () => {
    const { fake, backend, registry } = setup({ families: ['IPv4', 'IPv6'] });
    await backend.sync(full(nodeState(services(['a', 'c']))));
    expect(fake.restores.map((r) => r.family)).toEqual(['IPv4', 'IPv6']);
    const ip6Before = fake.save('IPv6');
    // web gains an IPv4-only endpoint: its IPv6 rendering does not change, so nothing is written there.
    const extraV4 = services(['a', 'c']).map((s) =>
      s.name === 'web' ? { ...s, endpoints: [...on('a', 'c'), { ip: '198.18.2.11', node: 'node-b' }] } : s,
    );
    await backend.sync(partial(nodeState(extraV4), ['web'], 2));
    expect(fake.chain('IPv4', 'nat', web.cluster)?.filter((r) => r.includes('-j KUBE-SEP-'))).toHaveLength(3);
    expect(fake.restores.map((r) => r.family)).toEqual(['IPv4', 'IPv6', 'IPv4']);
    expect(fake.save('IPv6')).toBe(ip6Before);
    expect(await registry.metrics()).toMatch(
      /kubeproxy_sync_proxy_rules_iptables_last\{table="nat",ip_family="IPv6"\} 0/,
    );
    // Removing the Service changes both families: both are written.
    const withoutWeb = services(['a']).filter((s) => s.name !== 'web');
    await backend.sync(partial(nodeState(withoutWeb), ['web'], 3));
    expect(fake.restores.map((r) => r.family)).toEqual(['IPv4', 'IPv6', 'IPv4', 'IPv4', 'IPv6']);
  });

  it('a partial sync deletes the chains of removed endpoints and Services', async () => {
    const { fake, backend } = setup();
    await backend.sync(full(nodeState(services(['a', 'c']))));
    const before = fake.chainNames('IPv4', 'nat').filter((c) => c.startsWith('KUBE-SEP-')).length;
    const withoutDns = services(['a']).filter((s) => s.name !== 'dns');
    await backend.sync(partial(nodeState(withoutDns), ['web', 'dns'], 2));
    const input = fake.restores.at(-1)?.input ?? '';
    expect(input.match(/^-X KUBE-SEP-/gm)).toHaveLength(2);
    expect(input).toContain(`-X ${dns.cluster}`);
    expect(fake.chainNames('IPv4', 'nat').filter((c) => c.startsWith('KUBE-SEP-'))).toHaveLength(before - 2);
    expect(fake.chain('IPv4', 'nat', dns.cluster)).toBeUndefined();
  });

  it('a failed restore leaves the previous rules, is counted, and the next sync is a full restore', async () => {
    const { fake, registry, backend } = setup();
    await backend.sync(full(nodeState(services(['a', 'c']))));
    const rulesBefore = fake.save('IPv4');
    fake.failNextRestore('iptables-restore: line 7 failed');
    await expect(backend.sync(partial(nodeState(services(['b'])), ['web'], 2))).rejects.toMatchObject({
      code: 'SYNC_FAILED',
    });
    expect(fake.save('IPv4')).toBe(rulesBefore);
    const metrics = await registry.metrics();
    expect(metrics).toMatch(/kubeproxy_sync_proxy_rules_iptables_restore_failures_total\{ip_family="IPv4"\} 1/);
    expect(metrics).toMatch(/kubeproxy_sync_proxy_rules_iptables_partial_restore_failures_total\{ip_family="IPv4"\} 1/);
    // core retries with a partial request again; the backend makes it full (canaries, every chain).
    await backend.sync(partial(nodeState(services(['b'])), ['web'], 3));
    const retry = fake.restores.at(-1)?.input ?? '';
    expect(retry).toMatch(/KUBE-PROXY-CANARY/);
    expect(declaredNat(retry)).toContain(dns.cluster);
    expect(fake.chain('IPv4', 'nat', web.cluster)?.filter((r) => r.includes('-j KUBE-SEP-'))).toHaveLength(1);
    expect(fake.chain('IPv4', 'filter', 'INPUT')).toHaveLength(4);
  });

  it('a restore that hangs past writeTimeoutMs is killed: a failed sync, counted as a write timeout, retried in full', async () => {
    const { fake, registry, backend } = setup({ writeTimeoutMs: 50 });
    await backend.sync(full(nodeState(services(['a', 'c']))));
    const rulesBefore = fake.save('IPv4');
    fake.hangNext('restore');
    await expect(backend.sync(partial(nodeState(services(['b'])), ['web'], 2))).rejects.toMatchObject({
      code: 'WRITE_TIMED_OUT',
      message: expect.stringMatching(/iptables-restore -w 5 --noflush did not finish within 50 ms: killed/),
    });
    expect(fake.save('IPv4')).toBe(rulesBefore);
    expect(await registry.metrics()).toMatch(
      /kubeproxy_sync_proxy_rules_iptables_restore_failures_total\{ip_family="IPv4"\} 1/,
    );
    await backend.sync(partial(nodeState(services(['b'])), ['web'], 3));
    expect(fake.restores.at(-1)?.input).toMatch(/KUBE-PROXY-CANARY/); // full
    expect(fake.chain('IPv4', 'nat', web.cluster)?.filter((r) => r.includes('-j KUBE-SEP-'))).toHaveLength(1);
  });

  it('an iptables-save the first sync waits for that hangs is killed too: a write timeout, and the retry works', async () => {
    const { fake, registry, backend } = setup({ writeTimeoutMs: 50 });
    fake.hangNext('save');
    await expect(backend.sync(full(nodeState(services(['a']))))).rejects.toMatchObject({
      code: 'WRITE_TIMED_OUT',
      message: expect.stringMatching(/iptables-save did not finish within 50 ms: killed/),
    });
    expect(fake.restores).toEqual([]);
    expect(await registry.metrics()).not.toMatch(/restore_failures_total\{ip_family="IPv4"\} [1-9]/);
    await backend.sync(full(nodeState(services(['a']))));
    expect(fake.chain('IPv4', 'nat', web.cluster)?.filter((r) => r.includes('-j KUBE-SEP-'))).toHaveLength(1);
  });

  it('a restore the kernel refuses half-way keeps the nat rules as they were', async () => {
    const { fake, backend } = setup();
    await backend.sync(full(nodeState(services(['a', 'c']))));
    const natBefore = fake.save('IPv4', 'nat');
    // Someone deletes a chain an unchanged Service still jumps to: the partial restore's KUBE-SERVICES fails.
    fake.removeChain('IPv4', 'nat', dns.cluster);
    const natDamaged = fake.save('IPv4', 'nat');
    expect(natDamaged).not.toBe(natBefore);
    await expect(backend.sync(partial(nodeState(services(['b'])), ['web'], 2))).rejects.toThrow(
      /Couldn't load target `KUBE-SVC-/,
    );
    expect(fake.save('IPv4', 'nat')).toBe(natDamaged);
    await backend.sync(partial(nodeState(services(['b'])), ['web'], 3));
    expect(fake.chain('IPv4', 'nat', dns.cluster)?.length).toBeGreaterThan(0);
  });

  it('a vanished canary makes the next partial sync full', async () => {
    let now = 0;
    const { fake, backend, log } = setup({ now: () => now });
    await backend.sync(full(nodeState(services(['a']))));
    fake.removeChain('IPv4', 'mangle', 'KUBE-PROXY-CANARY');
    // Not yet due: partial syncs do not probe on every run.
    now = 1_000;
    await backend.sync(partial(nodeState(services(['a', 'c'])), ['web'], 2));
    expect(fake.restores.at(-1)?.input).not.toMatch(/KUBE-PROXY-CANARY/);
    now = 60_000;
    await backend.sync(partial(nodeState(services(['a', 'b'])), ['web'], 3));
    expect(fake.restores.at(-1)?.input).toMatch(/KUBE-PROXY-CANARY/);
    expect(log.at('warn').map((r) => r.msg)).toEqual([expect.stringContaining('KUBE-PROXY-CANARY is gone')]);
    expect(fake.chain('IPv4', 'mangle', 'KUBE-PROXY-CANARY')).toEqual([]);
  });

  it('reports rules written and owned per table', async () => {
    const { registry, backend } = setup();
    await backend.sync(full(nodeState(services(['a', 'c']))));
    await backend.sync(partial(nodeState(services(['a'])), ['web'], 2));
    const metrics = await registry.metrics();
    const value = (name: string, table: string): number =>
      Number(new RegExp(`${name}\\{table="${table}",ip_family="IPv4"\\} (\\d+)`).exec(metrics)?.[1]);
    expect(value('kubeproxy_sync_proxy_rules_iptables_last', 'nat')).toBeLessThan(
      value('kubeproxy_sync_proxy_rules_iptables_total', 'nat'),
    );
    expect(value('kubeproxy_sync_proxy_rules_iptables_total', 'filter')).toBeGreaterThan(0);
  });

  it('cleanup removes every kube-proxy chain and jump of both families and nothing else', async () => {
    const { fake, backend } = setup({ families: ['IPv4', 'IPv6'] });
    await backend.sync(full(nodeState(allFeatures())));
    await fake.run(['iptables', '-t', 'nat', '-N', 'SOMEONE-ELSE'], '');
    await fake.run(['iptables', '-t', 'nat', '-A', 'PREROUTING', '-j', 'SOMEONE-ELSE'], '');
    await backend.cleanup();
    for (const family of ['IPv4', 'IPv6'] as const) expect(fake.save(family)).not.toMatch(/KUBE-(?!FIREWALL)/);
    // kubelet's KUBE-FIREWALL (the martian guard) stays, as upstream leaves it.
    expect(fake.chain('IPv4', 'filter', 'KUBE-FIREWALL')).toHaveLength(1);
    expect(fake.chain('IPv4', 'nat', 'PREROUTING')).toEqual(['-A PREROUTING -j SOMEONE-ELSE']);
  });

  it('adds a Service with a partial sync and sends it through the fake kernel', async () => {
    const { fake, backend } = setup();
    await backend.sync(full(nodeState(services(['a']))));
    const extra = [...services(['a']), { name: 'new', clusterIPs: clusterIPs(50), endpoints: on('b') }];
    await backend.sync(partial(nodeState(extra), ['new'], 2));
    expect(fake.chain('IPv4', 'nat', 'KUBE-SERVICES')?.some((r) => r.includes('-d 198.19.0.50'))).toBe(true);
  });

  it('warns once at start when the host is iptables-nft and the ruleset is large', async () => {
    // allFeatures has ~70 nat rules; the limit is lowered to keep the test small (15k in production).
    const big = allFeatures();
    for (const flavour of ['nft', 'legacy'] as const) {
      const { backend, log } = setup({ flavour, ruleLimit: 50 });
      await backend.sync(full(nodeState(big)));
      await backend.sync(full(nodeState(big), 2));
      const warnings = log.at('warn').map((r) => r.msg);
      expect(warnings).toEqual(
        flavour === 'nft' ? [expect.stringMatching(/nf_tables flavour .* use the nft backend/)] : [],
      );
    }
    const { backend, log } = setup({ flavour: 'nft' });
    await backend.sync(full(nodeState(allFeatures())));
    expect(log.at('warn')).toEqual([]);
  });

  it('warns before the first restore runs (on an iptables-nft host that restore is what takes minutes)', async () => {
    const { fake, backend, log } = setup({ flavour: 'nft', ruleLimit: 50 });
    fake.failNextRestore('iptables-restore: line 2 failed');
    await expect(backend.sync(full(nodeState(allFeatures())))).rejects.toThrow(/line 2 failed/);
    expect(log.at('warn').map((r) => r.msg)).toEqual([expect.stringMatching(/nf_tables flavour/)]);
  });
});

describe('values that fail validation never reach iptables-restore', () => {
  it('a Service with an injected ClusterIP renders as deleted, an injected endpoint is left out; both counted', async () => {
    const { fake, registry, backend, log } = setup();
    const state = nodeState(services(['a', 'b']));
    await backend.sync(full(state));
    // What a hostile stream could decode: the same Services with text in an address field.
    const hostile = structuredClone(state) as { -readonly [K in keyof typeof state]: any };
    const webAt = hostile.services.findIndex((s: any) => s.name === 'web');
    const dnsAt = hostile.services.findIndex((s: any) => s.name === 'dns');
    hostile.services[dnsAt].families.IPv4.clusterIP = '198.19.0.1\n-A KUBE-SERVICES -j ACCEPT';
    hostile.services[webAt].ports[0].endpoints.IPv4.cluster[0].ip = '198.18.1.1 -j ACCEPT';
    await backend.sync({ ...partial(hostile, ['web', 'dns'], 2) });
    const input = fake.restores.at(-1)!.input;
    expect(fake.restores.at(-1)!.ok).toBe(true);
    expect(input).not.toContain('-j ACCEPT\n-A KUBE-SERVICES -j ACCEPT');
    expect(input).not.toMatch(/198\.18\.1\.1 -j ACCEPT/);
    // dns's chains are deleted (as for a deleted Service); web keeps its other endpoint.
    expect(fake.chain('IPv4', 'nat', dns.cluster)).toBeUndefined();
    expect(fake.chain('IPv4', 'nat', web.cluster)).toHaveLength(1);
    const refused = await registry.getSingleMetric('kpng_render_refused_total')!.get();
    expect(refused.values.map((v) => [v.labels, v.value])).toEqual([
      [{ backend: 'iptables', kind: 'Service', reason: 'address' }, 1],
      [{ backend: 'iptables', kind: 'endpoint', reason: 'address' }, 1],
    ]);
    expect(log.at('warn').map((r) => r.msg)).toEqual([
      expect.stringMatching(/^Service left out/),
      expect.stringMatching(/^endpoint left out/),
    ]);
  });
});
