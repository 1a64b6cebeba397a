// Fault suite: iptables drift under `kube-proxy iptables` (cases in fault/drift.ts, the run in fault/drift-suite.ts).
import { IPTABLES_DRIFT } from './fault/drift.js';
import { describeDrift } from './fault/drift-suite.js';

await describeDrift('kube-proxy iptables', 'iptables', IPTABLES_DRIFT, false);
