// Fault suite: /healthz, /livez and /metrics within 1 s while `kpng-iptables` on iptables-legacy
// loads 10,000 Services and under churn (fault/health-load-suite.ts). Legacy: on iptables-nft a
// kube-proxy-shaped 10k ruleset takes more than 45 minutes to restore (issue 9); the compat
// kube-proxy runs the installed flavour, nft here, so the kpng program is the one that runs it.
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect } from 'vitest';
import { describeHealthUnderLoad } from './fault/health-load-suite.js';

// iptables-legacy serialises every iptables process on the host through one lock file, also in
// other namespaces: the 10k restore holds it for 10-40 s, and other suites' `iptables -w 5` would
// fail meanwhile. The lab's namespace is this file's own, so its processes take a lock of their own.
const lock = join(tmpdir(), `kpng-fault-${process.pid}-xtables.lock`);
process.env['XTABLES_LOCKFILE'] = lock;
afterAll(() => rm(lock, { force: true }));

/** s10k renders at least a KUBE-SERVICES rule per Service port into nat. */
const NAT_RULES_AT_LEAST = 10_000;

await describeHealthUnderLoad(
  ['kpng-iptables'],
  (o) => {
    expect(o.programmedMs, `never programmed; logs:\n${o.logs}`).toBeGreaterThan(0);
    for (const a of [...o.loading, ...o.churn]) {
      expect(a.answered, a.url).toBeGreaterThan(0);
      expect(a.failures, `${a.url} missed the 1 s deadline`).toEqual([]);
    }
    expect(o.servedAfterChurn, `the web ClusterIP stopped answering; logs:\n${o.logs}`).toBe(true);
    const nat = o.metricsAfterChurn
      .split('\n')
      .find(
        (l) =>
          l.startsWith('kubeproxy_sync_proxy_rules_iptables_total{') &&
          l.includes('table="nat"') &&
          l.includes('ip_family="IPv4"'),
      );
    expect(Number(nat?.split(' ').at(-1) ?? 0), `nat rules programmed after the churn (${nat})`).toBeGreaterThan(
      NAT_RULES_AT_LEAST,
    );
  },
  { args: { 'kpng-iptables': ['--iptables-flavour', 'legacy'] } },
);
