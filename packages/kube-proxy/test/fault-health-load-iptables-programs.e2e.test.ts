// Fault suite: /healthz, /livez and /metrics within 1 s while the compat `kube-proxy` in iptables
// mode, then `kpng-iptables`, loads 10,000 Services and under churn (fault/health-load-suite.ts), both
// on iptables-legacy: on iptables-nft a kube-proxy-shaped 10k ruleset takes more than 45 minutes to
// restore (issue 9). One file for both: the two loads must not run at once (2 cores). kube-proxy
// runs the `iptables` on PATH, as upstream: PATH starts with a directory whose iptables* are the
// -legacy tools (fault/legacy-iptables-path.ts), as a node's iptables-wrapper or alternatives do;
// kpng-iptables takes `--iptables-flavour legacy` (it runs the iptables-legacy-* tools by name).
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterAll, expect } from 'vitest';
import { describeHealthUnderLoad } from './fault/health-load-suite.js';
import { legacyIptablesPath } from './fault/legacy-iptables-path.js';

// iptables-legacy serialises every iptables process on the host through one lock file, also in
// other namespaces: the 10k restore holds it for 10-40 s, and other suites' `iptables -w 5` would
// fail meanwhile. The lab's namespace is this file's own, so its processes take a lock of their own.
const lock = join(tmpdir(), `kpng-fault-${process.pid}-xtables.lock`);
process.env['XTABLES_LOCKFILE'] = lock;
// This file's own process environment (one test file a worker), which the programs (child processes) inherit.
const legacy = await legacyIptablesPath();
const path = process.env['PATH'];
process.env['PATH'] = [legacy.dir, path].join(delimiter);
afterAll(async () => {
  process.env['PATH'] = path;
  await rm(lock, { force: true });
  await legacy.remove();
});

/** s10k renders at least a KUBE-SERVICES rule per Service port into nat. */
const NAT_RULES_AT_LEAST = 10_000;

await describeHealthUnderLoad(
  ['kube-proxy iptables', 'kpng-iptables'],
  (o) => {
    expect(o.programmedMs, `never programmed; logs:\n${o.logs}`).toBeGreaterThan(0);
    // The compat kube-proxy detected the flavour of the `iptables` it found on PATH: legacy.
    if (o.name === 'kube-proxy iptables')
      expect(o.startLogs, 'kube-proxy ran the iptables on PATH').toMatch(/iptables detected[^\n]*legacy/);
    for (const a of [...o.loading, ...o.churn]) {
      expect(a.answered, a.url).toBeGreaterThan(0);
      expect(a.failures, `${a.url} missed the 1 s deadline; logs:\n${o.logs}`).toEqual([]);
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
