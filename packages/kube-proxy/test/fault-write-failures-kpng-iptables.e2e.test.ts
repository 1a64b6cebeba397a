// Fault suite: `kpng-iptables` as a child process (compiled: build first) whose kernel writes fail, are
// missing, then hang until its --write-timeout kills them (fault/write-failures-suite.ts): one
// program start for the three phases, as the compat kube-proxy's files.
import { describeWriteFailures, expectWriteFailuresHandled } from './fault/write-failures-suite.js';

// No failed connection, nothing new written meanwhile, retries paced and counted (timeouts in the hang
// phase only): fault/write-failures-suite.ts, expectWriteFailuresHandled.
await describeWriteFailures('kpng-iptables', 3_000, expectWriteFailuresHandled);
