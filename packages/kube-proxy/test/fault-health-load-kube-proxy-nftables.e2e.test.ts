// Fault suite: /healthz, /livez and /metrics within 1 s while `kube-proxy nftables` loads 10,000
// Services and under churn (fault/health-load-suite.ts).
import { describeHealthUnderLoad } from './fault/health-load-suite.js';

await describeHealthUnderLoad('kube-proxy nftables');
