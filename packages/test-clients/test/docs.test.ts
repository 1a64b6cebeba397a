// The documentation names every flag (and its alias) and every metric of its client, so the docs
// cannot silently fall behind the code.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { podCreationFlags, policyCreationFlags, serviceProgrammingFlags } from '../src/config/clients.js';
import type { FlagSet } from '../src/config/flags.js';
import { METRIC_NAMES } from '../src/metrics/client-metrics.js';

const doc = (name: string) => readFileSync(new URL(`../docs/${name}.md`, import.meta.url), 'utf8');
const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');

const CLIENTS: [string, FlagSet, string[]][] = [
  ['pod-creation-reachability-latency', podCreationFlags(), [METRIC_NAMES.podIpAssigned, METRIC_NAMES.podReachability]],
  [
    'policy-creation-enforcement-latency',
    policyCreationFlags(),
    [METRIC_NAMES.policyCreation, METRIC_NAMES.policyDeletion],
  ],
  ['service-programming-latency', serviceProgrammingFlags(), [METRIC_NAMES.serviceProgramming]],
];

describe.each(CLIENTS)('docs/%s.md', (name, flags, metrics) => {
  it('documents every flag with its alias', () => {
    // The policy client's page refers to the pod-creation page for the shared flags.
    const text = name.startsWith('policy') ? doc(name) + doc('pod-creation-reachability-latency') : doc(name);
    for (const spec of flags.specs) {
      expect(text, spec.name).toContain(`\`-${spec.name}\``);
      expect(text, spec.alias).toContain(`\`--${spec.alias}\``);
    }
  });

  it('documents its metrics, and the README lists the client', () => {
    for (const metric of metrics) expect(doc(name)).toContain(`\`${metric}\``);
    expect(readme).toContain(`docs/${name}.md`);
  });
});
