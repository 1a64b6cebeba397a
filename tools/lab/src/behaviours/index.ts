// One table of Service behaviours every Linux backend's kernel e2e runs (see cases.ts).
export { BEHAVIOURS, CLUSTER_IP_GUARD, LOCALHOST_NODEPORTS, type BehaviourCase, type Pod } from './cases.js';
export { affinityCases } from './affinity-cases.js';
export { behaviourCases, expectBehaviour, probeCase, type BehaviourOptions } from './behaviour-cases.js';
export {
  clientAddress,
  clientNamespace,
  createProxyLab,
  destination,
  ECHO_PORT,
  EXTERNAL_CLIENT,
  HOLD_PORT,
  LAB_PODS,
  type Client,
  type LabFamily,
} from './proxy-lab.js';
export { webManifest } from './manifest.js';
