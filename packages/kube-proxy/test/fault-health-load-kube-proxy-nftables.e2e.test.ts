// Fault suite: /healthz, /livez and /metrics within 1 s while `kube-proxy nftables` loads 10,000
// Services and under churn (fault/health-load-suite.ts).
import { expect } from 'vitest';
import { describeHealthUnderLoad } from './fault/health-load-suite.js';

await describeHealthUnderLoad('kube-proxy nftables', (o) => {
  expect(o.programmedMs, `never programmed; logs:\n${o.logs}`).toBeGreaterThan(0);
  for (const a of [...o.loading, ...o.churn]) {
    expect(a.answered, a.url).toBeGreaterThan(0);
    expect(a.failures, `${a.url} missed the 1 s deadline`).toEqual([]);
  }
});
