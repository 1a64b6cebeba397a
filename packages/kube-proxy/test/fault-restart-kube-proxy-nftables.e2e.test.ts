import { describeRestart } from './fault/restart-suite.js';

// The compat kube-proxy as a child process (compiled: build first), killed with SIGKILL and restarted.
await describeRestart('nftables', '2s');
