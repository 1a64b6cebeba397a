/**
 * Runs the verification cases against an `Hns` (the fake in unit tests, computenetwork.dll on a
 * Windows node) and reports what each answered. Everything a case creates is deleted again, also
 * when the case fails; the run touches nothing else.
 */
import { isHcnError } from '../hcn/errors.js';
import type { Hns } from '../hcn/hns.js';
import { loadBalancerJson, type HostComputeLoadBalancer } from '../hcn/schema.js';
import { normalizeLoadBalancer } from '../backend/mirror.js';
import { VERIFY_CASES, type VerifyCase, type VerifyContext } from './cases.js';

export interface VerifyResult {
  readonly name: string;
  readonly basis: VerifyCase['basis'];
  readonly expected: number;
  /** 0: accepted; else the HRESULT; -1: something other than an HCN error. */
  readonly actual: number;
  /** Accepted documents read back from HNS differ from what was sent (in the fields that matter). */
  readonly roundTrip?: string;
  readonly detail?: string;
}

export async function runVerification(
  hns: Hns,
  ctx: VerifyContext,
  cases: readonly VerifyCase[] = VERIFY_CASES,
): Promise<VerifyResult[]> {
  const results: VerifyResult[] = [];
  for (const c of cases) {
    const created: string[] = [];
    try {
      if (c.first !== undefined) created.push((await hns.createLoadBalancer(loadBalancerJson(c.first(ctx)))).ID ?? '');
      const doc = c.doc(ctx);
      const settings = typeof doc === 'string' ? doc : loadBalancerJson(doc);
      try {
        const back = await hns.createLoadBalancer(settings);
        created.push(back.ID ?? '');
        const listed = (await hns.listLoadBalancers()).find((lb) => lb.ID?.toUpperCase() === back.ID?.toUpperCase());
        const sent = normalizeLoadBalancer(doc as HostComputeLoadBalancer);
        const got = listed === undefined ? '(not listed)' : normalizeLoadBalancer(listed);
        results.push({
          name: c.name,
          basis: c.basis,
          expected: c.expected,
          actual: 0,
          ...(got === sent ? {} : { roundTrip: `sent ${sent}, HNS lists ${got}` }),
        });
      } catch (e) {
        results.push({
          name: c.name,
          basis: c.basis,
          expected: c.expected,
          actual: isHcnError(e) ? e.hresult : -1,
          detail: e instanceof Error ? e.message : String(e),
        });
      }
    } finally {
      for (const id of created.reverse()) await hns.deleteLoadBalancer(id);
    }
  }
  return results;
}

export const agrees = (r: VerifyResult): boolean => r.actual === r.expected && r.roundTrip === undefined;
