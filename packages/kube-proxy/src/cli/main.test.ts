// The compat binary's front door, in process: everything up to (not including) programming the
// kernel or watching an API server. Running for real is test/kube-proxy.e2e.test.ts.
import { describe, expect, it } from 'vitest';
import { decodeConfiguration } from '../config/decode.js';
import { FLAGS } from '../flags/table.js';
import { parseLogLine } from '@kpng/core/testing';
import { main } from './main.js';
import { VERSION } from './version.js';

const HEAD = 'apiVersion: kubeproxy.config.k8s.io/v1alpha1\nkind: KubeProxyConfiguration\n';

/** A fake /proc/sys: unit tests must never write the host's settings. */
const sysctlWrites: string[] = [];
const sysctl = {
  read: async () => 0,
  write: async (name: string, value: number) => void sysctlWrites.push(`${name}=${value}`),
};

async function run(argv: string[], files: Record<string, string> = {}) {
  let stdout = '';
  let stderr = '';
  const written: Record<string, string> = {};
  const code = await main(
    argv,
    {},
    {
      stdout: (t) => void (stdout += t),
      stderr: (t) => void (stderr += t),
      readFile: (path) => {
        const text = files[path];
        if (text === undefined) throw Object.assign(new Error('ENOENT'), { code: 'ENOENT' });
        return text;
      },
      writeFile: (path, text) => void (written[path] = text),
      sysctl, // never the host's
      setOomScoreAdj: async () => {}, // never the test runner's
      signal: AbortSignal.abort(),
    },
  );
  return { code, stdout, stderr, written };
}

/** The klog warning lines of a run's stderr. */
const warningsIn = (stderr: string) =>
  stderr
    .trim()
    .split('\n')
    .map((l) => parseLogLine(l))
    .filter((l) => l?.severity === 'warn');

describe('kube-proxy main', () => {
  it.each([[['--version']], [['--version=true']]])('%j prints the version', async (argv) => {
    expect(await run(argv)).toMatchObject({ code: 0, stdout: `kube-proxy (kpng) v${VERSION}\n`, stderr: '' });
  });

  it('--version=raw prints details as JSON', async () => {
    const { code, stdout } = await run(['--version=raw']);
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toMatchObject({
      implementation: 'kpng',
      version: VERSION,
      modes: ['iptables', 'nftables', 'ipvs', 'ebpf'],
    });
  });

  it.each([[['--help']], [['-h']], [['--proxy-mode=ipvs', '--help']]])(
    '%j prints usage listing every flag',
    async (argv) => {
      const { code, stdout, stderr } = await run(argv);
      expect([code, stderr]).toEqual([0, '']);
      expect(stdout).toMatch(/^kube-proxy \(kpng\)/);
      for (const flag of FLAGS.filter((f) => !f.deprecated && !f.hidden)) expect(stdout).toContain(`--${flag.name}`);
      expect(stdout).toContain('  -v, --v Level');
    },
  );

  it.each([
    [
      ['--nftables-sync-period=30s'],
      "Error: unknown flag: --nftables-sync-period\nRun 'kube-proxy --help' for usage.\n",
    ],
    [
      ['--masquerade-all=maybe'],
      'Error: invalid argument "maybe" for "--masquerade-all" flag: strconv.ParseBool: parsing "maybe": invalid syntax\nRun \'kube-proxy --help\' for usage.\n',
    ],
    [['--config=/nope.yaml'], 'Error: failed complete: open /nope.yaml: no such file or directory\n'],
  ])('%j exits 1: %j', async (argv, message) => {
    expect(await run(argv)).toMatchObject({ code: 1, stdout: '', stderr: message });
  });

  it('refuses a mode of another OS (kernelspace on Linux), saying which it has', async () => {
    const { code, stderr } = await run(['--proxy-mode=kernelspace']);
    expect(code).toBe(1);
    expect(stderr).toContain(
      'Error: failed validate: KubeProxyConfiguration.mode: Invalid value: "kernelspace": proxy mode "kernelspace" is not available in this build of kube-proxy (kpng); available modes: "iptables", "nftables", "ipvs", "ebpf" (set by --proxy-mode)\n',
    );
  });

  it('names the flag behind an invalid field', async () => {
    const { code, stderr } = await run([
      '--iptables-sync-period=0s',
      '--iptables-min-sync-period=0s',
      '--conntrack-min=-1',
    ]);
    expect(code).toBe(1);
    expect(stderr).toContain(
      'Error: failed validate: [KubeProxyConfiguration.iptables.syncPeriod: Invalid value: 0s: must be greater than 0 (set by --iptables-sync-period), ' +
        'KubeProxyConfiguration.conntrack.min: Invalid value: -1: must be greater than or equal to 0 (set by --conntrack-min)]\n',
    );
  });

  it('reports a config file error with its field path', async () => {
    // minSyncPeriod: 0s in a file defaults to 1s (upstream's defaulting), hence the second error.
    const files = { '/etc/kp.yaml': `${HEAD}mode: nftables\nnftables:\n  syncPeriod: -5s\n  minSyncPeriod: 0s\n` };
    const { code, stderr } = await run(['--config=/etc/kp.yaml'], files);
    expect(code).toBe(1);
    expect(stderr).toContain(
      'Error: failed validate: [KubeProxyConfiguration.nftables.syncPeriod: Invalid value: -5s: must be greater than 0, ' +
        'KubeProxyConfiguration.nftables.syncPeriod: Invalid value: 1s: must be greater than or equal to KubeProxyConfiguration.nftables.minSyncPeriod]\n',
    );
  });

  it('warns about every feature gate, ignored flags and removed fields, then carries on', async () => {
    const files = {
      '/etc/kp.yaml': `${HEAD}mode: nftables\nudpIdleTimeout: 250ms\nfeatureGates:\n  NFTablesProxyMode: true\n`,
    };
    const { code, stderr } = await run(['--config=/etc/kp.yaml', '--feature-gates=WinDSR=false', '--init-only'], files);
    expect(code).toBe(0);
    const warnings = warningsIn(stderr);
    expect(warnings.map((l) => `${l!.msg} ${String(l!.rest)}`)).toEqual([
      '/etc/kp.yaml: field "udpIdleTimeout" is no longer used by kube-proxy and is ignored component="kube-proxy"',
      'these flags are ignored because --config is given (as upstream kube-proxy does): --feature-gates component="kube-proxy"',
      'feature gate NFTablesProxyMode=true is not used by kpng\'s kube-proxy and is ignored component="kube-proxy"',
    ]);
  });

  it("logs klog's text header by default: severity, date, time to the microsecond, pid, module:line", async () => {
    const { stderr } = await run(['--feature-gates=TopologyAwareHints=false', '--init-only']);
    const line = stderr.split('\n').find((l) => l.includes('TopologyAwareHints'));
    expect(line).toMatch(
      new RegExp(
        `^W\\d{4} \\d\\d:\\d\\d:\\d\\d\\.\\d{6} +${process.pid} run\\.[jt]s:\\d+\\] "feature gate TopologyAwareHints=false `,
      ),
    );
  });

  it('accepts --windows-service (Windows-only upstream) and warns that it is not acted on', async () => {
    const { code, stderr } = await run(['--windows-service', '--init-only']);
    expect(code).toBe(0);
    const warnings = warningsIn(stderr);
    expect(warnings.map((w) => w!.msg)).toContainEqual(
      expect.stringMatching(/^windowsRunAsService: kpng does not report/),
    );
  });

  it('warns about flag feature gates without --config', async () => {
    const { code, stderr } = await run([
      '--feature-gates=MultiCIDRServiceAllocator=true,TopologyAwareHints=false',
      '--init-only',
      '--logging-format=json',
    ]);
    expect(code).toBe(0);
    // component-base's JSON shape; warnings are v=0 lines there, as klog through logr writes them.
    const lines = stderr
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    for (const l of lines) {
      expect(l).toMatchObject({ ts: expect.any(Number), caller: expect.stringMatching(/\.[jt]s:\d+$/), v: 0 });
      expect(Object.keys(l).slice(0, 4)).toEqual(['ts', 'caller', 'msg', 'v']);
    }
    const warnings = lines.filter((l) => /feature gate|mode is blank/.test(String(l['msg'])));
    expect(warnings.map((w) => w['msg'])).toEqual([
      expect.stringContaining('mode is blank: using iptables'),
      "feature gate MultiCIDRServiceAllocator=true is not used by kpng's kube-proxy and is ignored",
      "feature gate TopologyAwareHints=false is not used by kpng's kube-proxy and is ignored",
    ]);
  });

  // Upstream: pflag's Set on --feature-gates, and Complete's SetFromMap on the file's gates.
  it.each([
    [
      'a flag',
      ['--feature-gates=NFTablesProxyMode=true,NoSuchGate=true'],
      'Error: invalid argument "NFTablesProxyMode=true,NoSuchGate=true" for "--feature-gates" flag: unrecognized feature gate: NoSuchGate\n',
    ],
    [
      'the file (flags parsed first, as pflag)',
      ['--config=/etc/kp.yaml'],
      'Error: failed complete: unrecognized feature gate: SupportIPVSProxyMode\n',
    ],
  ])("an unknown feature gate in %s exits 1 with upstream's message", async (_where, argv, message) => {
    const files = { '/etc/kp.yaml': `${HEAD}mode: nftables\nfeatureGates:\n  SupportIPVSProxyMode: true\n` };
    const { code, stderr } = await run([...argv, '--init-only'], files);
    expect(code).toBe(1);
    expect(stderr).toContain(message);
  });

  it('--write-config-to writes the effective configuration, which reads back to the same', async () => {
    const argv = [
      '--proxy-mode=nftables',
      '--cluster-cidr=198.18.0.0/16',
      '--iptables-sync-period=10s',
      '--masquerade-all',
      '--hostname-override=Node-A',
    ];
    const first = await run([...argv, '--write-config-to=/tmp/kp.yaml']);
    expect(first.code).toBe(0);
    const yaml = first.written['/tmp/kp.yaml']!;
    expect(decodeConfiguration(yaml).config).toMatchObject({
      mode: 'nftables',
      clusterCIDR: '198.18.0.0/16',
      hostnameOverride: 'node-a',
      detectLocalMode: 'ClusterCIDR',
      nodePortAddresses: ['primary'],
      nftables: { syncPeriod: 10_000, masqueradeAll: true },
    });
    const second = await run(['--config=/tmp/kp.yaml', '--write-config-to=/tmp/kp2.yaml'], { '/tmp/kp.yaml': yaml });
    expect(second.written['/tmp/kp2.yaml']).toBe(yaml);
  });

  it("--with-netpol sets kpng's enforceNetworkPolicy, written only when set (upstream's type has no such field)", async () => {
    const plain = await run(['--proxy-mode=nftables', '--write-config-to=/tmp/kp.yaml']);
    expect(plain.written['/tmp/kp.yaml']).not.toContain('enforceNetworkPolicy');
    const enforced = await run(['--proxy-mode=nftables', '--with-netpol', '--write-config-to=/tmp/kp.yaml']);
    const yaml = enforced.written['/tmp/kp.yaml']!;
    expect(yaml).toContain('enforceNetworkPolicy: true\n');
    expect(decodeConfiguration(yaml).config).toMatchObject({ mode: 'nftables', enforceNetworkPolicy: true });
  });

  it("--init-only applies upstream's privileged set-up of the mode (iptables: conntrack, route_localnet) and exits", async () => {
    sysctlWrites.length = 0;
    const { code } = await run(['--init-only', '--conntrack-max-per-core=1000', '--conntrack-min=5000']);
    expect(code).toBe(0);
    expect(sysctlWrites).toEqual([
      'net/netfilter/nf_conntrack_max=5000',
      'net/netfilter/nf_conntrack_tcp_timeout_established=86400',
      'net/netfilter/nf_conntrack_tcp_timeout_close_wait=3600',
      'net/ipv4/conf/all/route_localnet=1',
    ]);
  });

  it('--init-only: no route_localnet in nftables mode, nor in iptables mode when the NodePort addresses leave out 127.0.0.1', async () => {
    for (const argv of [
      ['--proxy-mode=nftables'],
      ['--proxy-mode=iptables', '--nodeport-addresses=10.0.0.0/8'],
      ['--proxy-mode=iptables', '--iptables-localhost-nodeports=false'],
    ]) {
      sysctlWrites.length = 0;
      const { code } = await run(['--init-only', '--conntrack-max-per-core=0', ...argv]);
      expect(code, argv.join(' ')).toBe(0);
      expect(sysctlWrites, argv.join(' ')).toEqual([
        'net/netfilter/nf_conntrack_tcp_timeout_established=86400',
        'net/netfilter/nf_conntrack_tcp_timeout_close_wait=3600',
      ]);
    }
  });
});
