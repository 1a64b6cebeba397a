/**
 * Declares one vitest case per behaviour and family (call it inside a `describe` whose
 * `beforeAll` programs the lab's node): probes with real packets and checks who answered, which
 * source the endpoint saw, or how the connection failed.
 */
import { describe, expect, it } from 'vitest';
import type { Lab } from '../netns/lab.js';
import type { ProbeResult } from '../netns/probe.js';
import type { BehaviourCase } from './cases.js';
import { clientAddress, clientNamespace, destination, type LabFamily } from './proxy-lab.js';

const ATTEMPTS = 16;

export interface BehaviourOptions {
  readonly cases: readonly BehaviourCase[];
  readonly families?: readonly LabFamily[];
}

export async function probeCase(lab: Lab, family: LabFamily, c: BehaviourCase): Promise<ProbeResult[]> {
  const options = {
    proto: c.proto ?? 'tcp',
    ip: destination(lab, family, c.to),
    port: c.port,
    timeoutMs: 1_000,
  } as const;
  return lab.probeRepeatedly(clientNamespace(lab, c.from), options, Array.isArray(c.expect) ? ATTEMPTS : 1);
}

export function expectBehaviour(results: readonly ProbeResult[], family: LabFamily, c: BehaviourCase): void {
  if (!Array.isArray(c.expect)) {
    expect(results.map((r) => r.error)).toEqual([c.expect]);
    return;
  }
  expect(
    results.filter((r) => !r.ok),
    JSON.stringify(results),
  ).toEqual([]);
  const servers = new Set(results.map((r) => r.server));
  if (c.sticky === true) {
    expect(servers.size).toBe(1);
    expect(c.expect.map((p) => `pod-${p}`)).toContain([...servers][0]);
  } else {
    expect([...servers].sort()).toEqual(c.expect.map((p) => `pod-${p}`));
  }
  const own = clientAddress(family, c.from);
  if (c.source === 'kept') for (const r of results) expect(r.seenSource).toBe(own);
  if (c.source === 'masqueraded') for (const r of results) expect(r.seenSource).not.toBe(own);
  // The pod meets itself masqueraded (else its reply would bypass the node), others see it.
  if (c.hairpin === true) for (const r of results) expect(r.seenSource === own).toBe(r.server !== `pod-${c.from}`);
}

export function behaviourCases(lab: () => Lab, options: BehaviourOptions): void {
  for (const family of options.families ?? (['IPv4', 'IPv6'] as const)) {
    describe(family, () => {
      it.each(options.cases)('$name', async (c) => {
        expectBehaviour(await probeCase(lab(), family, c), family, c);
      });
    });
  }
}
