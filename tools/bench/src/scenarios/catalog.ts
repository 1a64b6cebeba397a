import { scenario, type Scenario, type ScenarioOptions } from './scenario.js';

/** The scenarios of `docs/PERFORMANCE.md`. */
export const SCENARIO_NAMES = ['s1k', 's10k', 's10k-wide', 'churn', 's50k'] as const;
export type ScenarioName = (typeof SCENARIO_NAMES)[number];

const S10K: ScenarioOptions = {
  services: 10_000,
  endpointsPerService: 10,
  nodePortFraction: 0.1,
  clientIPAffinityFraction: 0.05,
  localTrafficPolicyFraction: 0.05,
  twoPortFraction: 0.1,
};

export interface ScenarioEntry {
  readonly description: string;
  readonly options: ScenarioOptions;
}

export const SCENARIOS: Readonly<Record<ScenarioName, ScenarioEntry>> = {
  s1k: {
    description: '1,000 services x 10 endpoints',
    options: { services: 1_000, endpointsPerService: 10 },
  },
  s10k: {
    description:
      '10,000 services x 10 endpoints; 10% NodePort, 5% ClientIP affinity, 5% LoadBalancer with externalTrafficPolicy Local, 2 ports on 10%',
    options: S10K,
  },
  's10k-wide': {
    description: '1,000 services x 100 endpoints plus 9,000 x 1',
    options: { services: 10_000, endpointsPerService: (i) => (i < 1_000 ? 100 : 1) },
  },
  churn: {
    description: 's10k, then 100 endpoint changes per second for 60 s (see createChurn)',
    options: S10K,
  },
  s50k: {
    description:
      '50,000 services x 10 endpoints; s10k mix, but NodePort and LoadBalancer at s10k counts (1,000 and 500: the node port range holds 2,768)',
    // The same fractions would need ~10,800 node ports; 30000-32767 holds 2,768.
    options: { ...S10K, services: 50_000, nodePortFraction: 0.02, localTrafficPolicyFraction: 0.01 },
  },
};

export function isScenarioName(name: string): name is ScenarioName {
  return (SCENARIO_NAMES as readonly string[]).includes(name);
}

/** The named scenario's objects. `seed` changes the draw, not the counts. */
export function generate(name: ScenarioName, overrides: { readonly seed?: number } = {}): Scenario {
  if (!isScenarioName(name)) throw new Error(`unknown scenario "${String(name)}"; known: ${SCENARIO_NAMES.join(', ')}`);
  return scenario({ ...SCENARIOS[name].options, ...overrides, name });
}
