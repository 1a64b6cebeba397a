import { describeWriteFailures } from './fault/write-failures-suite.js';

// The compat kube-proxy as a child process (compiled: build first) whose nft/iptables-restore fail, then hang.
await describeWriteFailures('iptables', 3_000);
