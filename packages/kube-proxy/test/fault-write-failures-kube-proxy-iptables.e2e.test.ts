// Fault suite: the compat kube-proxy (iptables mode) as a child process (compiled: build first) whose
// kernel writes fail, are missing, then hang until the write timeout kills them (fault/write-failures-suite.ts).
import { describeWriteFailures, expectWriteFailuresHandled } from './fault/write-failures-suite.js';

// No failed connection, nothing new written meanwhile, retries paced and counted (timeouts in the hang
// phase only): fault/write-failures-suite.ts, expectWriteFailuresHandled.
await describeWriteFailures('kube-proxy iptables', 3_000, expectWriteFailuresHandled);
