// @kpng/bench: scenario generators, the churn generator and the benchmark runner.

// Scenarios
export { generate, isScenarioName, SCENARIO_NAMES, SCENARIOS } from './scenarios/catalog.js';
export type { ScenarioEntry, ScenarioName } from './scenarios/catalog.js';
export { scenario, namespaceName, serviceName, DEFAULT_CREATED_AT } from './scenarios/scenario.js';
export type { Scenario, ScenarioOptions } from './scenarios/scenario.js';
export { nodeName, zoneName } from './scenarios/nodes.js';
export { ADDRESS_PLAN } from './scenarios/address-plan.js';
export { NODE_PORT_MIN, NODE_PORT_MAX } from './scenarios/nodeports.js';
export { scenarioViolations } from './scenarios/invariants.js';
export { writeScenario, serializeScenario, toList, formatFromPath } from './scenarios/write.js';
export type { ScenarioFormat } from './scenarios/write.js';
export { createChurn, CHURN_KINDS } from './scenarios/churn.js';
export type { Churn, ChurnKind, ChurnOptions, ChurnStep } from './scenarios/churn.js';

// Raw Kubernetes objects
export { MAX_ENDPOINTS_PER_SLICE, SERVICE_NAME_LABEL, TRIGGER_TIME_ANNOTATION } from './kube/types.js';
export type {
  Endpoint,
  EndpointSliceObject,
  KubeList,
  KubeObject,
  NodeObject,
  ObjectMeta,
  ServiceObject,
} from './kube/types.js';
export { toYaml } from './kube/fast-yaml.js';

// Runner
export { measure, measurePair, measurementOf } from './runner/measure.js';
export type { Benchmark, Measurement, MeasureOptions } from './runner/measure.js';
export { ratio } from './runner/ratio.js';
export { percentile, summarize } from './runner/stats.js';
export type { Summary } from './runner/stats.js';
export { createReporter, formatRow, formatTable, rowFromMeasurement, rowFromValue } from './runner/report.js';
export type { Reporter, ReportRow, Writable } from './runner/report.js';

// Suites and the CLI
export { defineSuite } from './suites/suite.js';
export type { Suite, SuiteContext } from './suites/suite.js';
export { main } from './cli/main.js';
