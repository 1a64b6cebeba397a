// Fault suite: /healthz, /livez and /metrics within 1 s while `kube-proxy nftables`, then `kpng-nft`,
// loads 10,000 Services and under churn (fault/health-load-suite.ts). One file for both: the two
// loads must not run at once (each would measure the other's CPU use on a 2-core machine).
import { expect } from 'vitest';
import { describeHealthUnderLoad } from './fault/health-load-suite.js';

await describeHealthUnderLoad(['kube-proxy nftables', 'kpng-nft'], (o) => {
  expect(o.programmedMs, `never programmed; logs:\n${o.logs}`).toBeGreaterThan(0);
  for (const a of [...o.loading, ...o.churn]) {
    expect(a.answered, a.url).toBeGreaterThan(0);
    expect(a.failures, `${a.url} missed the 1 s deadline; logs:\n${o.logs}`).toEqual([]);
  }
});
