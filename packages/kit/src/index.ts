// @kpng/kit: the small dependency-free pieces every kpng package shares, each written once.
export { TurnBudget } from './turn-budget.js';
export { diffKeyed, runSteps, runStepsYielding, type KeyedDiffVisitor, type Steps } from './keyed-diff.js';
export { inNetns, type InNetnsOptions } from './netns.js';
export {
  ExecError,
  ExecStartError,
  ExecTimeoutError,
  eachLine,
  processExecer,
  processExecerWith,
  runSync,
  runSyncChecked,
  runChecked,
  runChunked,
  spawnChild,
  startProcess,
  withTimeout,
  type Execer,
  type ExecResult,
  type ProcessExit,
  type ProcessOptions,
  type RunSyncOptions,
  type SpawnedChild,
  type SpawnOptions,
  type StartedProcess,
} from './exec.js';
export { Backoff, backoffDelay, type BackoffClock, type BackoffOptions } from './backoff.js';
export {
  FlagSyntaxError,
  tokenizeFlags,
  type FlagDialect,
  type FlagShape,
  type FlagSyntaxReason,
  type FlagToken,
} from './flags.js';
export { formatGoDuration, parseDurationMs, parseGoDuration } from './duration.js';
export { metricsOn, registeredOr, type DeclareMetric, type MetricClass, type MetricLookup } from './metrics.js';
