// The network-namespace lab: the public surface of `tools/lab/src/netns`.
export { ADDRESS_PLAN, podAddresses } from './address-plan.js';
export { canCreateNamespaces, type Capability } from './capability.js';
export { startEchoServer, type EchoOptions, type EchoServer } from './echo.js';
export { holdConnection, type HeldConnection, type HoldTarget } from './held.js';
export { e2eMode, kernelE2e, type E2eMode, type KernelE2e, type KernelE2eOptions } from './e2e-mode.js';
export { Lab, type LabClient, type LabHost, type LabOptions, type LabPod } from './lab.js';
export { NAMESPACE_PREFIX, namespaceName, ownerPid } from './names.js';
export { createNamespace, NetworkNamespace, type ExecOptions } from './namespace.js';
export { probe, probeRepeatedly, type ProbeError, type ProbeOptions, type ProbeResult } from './probe.js';
export type { RunResult } from './run.js';
export { probeSteadily, startSteadily, type SteadyOptions, type SteadyResult, type SteadyTraffic } from './steady.js';
export { SpawnedProcess } from './spawned.js';
export { scaledTimeout } from './timeout-scale.js';
export { listNamespaces, sweepLeftovers } from './sweep.js';
