import { UPSTREAM_FEATURE_GATES } from './feature-gates-data.js';

/**
 * component-base's `SetFromMap` check: the first unknown gate (in name order, where Go's map order
 * is random) is the error, with upstream's text; undefined when every gate is known.
 */
export function unknownFeatureGateError(gates: Readonly<Record<string, boolean>>): string | undefined {
  const unknown = Object.keys(gates)
    .sort()
    .find((name) => !UPSTREAM_FEATURE_GATES.has(name));
  return unknown === undefined ? undefined : `unrecognized feature gate: ${unknown}`;
}
