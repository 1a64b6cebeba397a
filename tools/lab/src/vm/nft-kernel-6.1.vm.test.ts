// The nft backend's kernel e2e on Debian's 6.1 kernel in the lab's VM: the nft README says kernels
// before 6.2 need a different chain-deletion order, and 6.1 is what Debian 12 and many LTS
// distributions run. `npm test` (so CI) runs the core cases below; `KPNG_VM_SUITES=nft-6.1-full`
// runs both files whole (56 tests, 2-5 min under TCG). Each guest test is reported here.
import { describe, expect, it } from 'vitest';
import { runVitestInVm } from './vitest-in-vm.js';
import { vmE2e } from './vm-e2e.js';

/**
 * The core cases, by name: partial syncs that delete endpoint chains in the same transaction as
 * their last reference (the < 6.2 question) and a failed transaction, then the main Service kinds
 * (ClusterIP TCP and UDP, NodePort, no endpoints, source ranges, ETP Local), each in IPv4 and IPv6.
 */
export const CORE_CASES: readonly string[] = [
  'partial syncs follow endpoints',
  'a failed apply leaves the rules intact',
  // The shared cases' names are cut at 40 characters in the guest's report (vitest's %s): prefixes.
  'ClusterIP from a local pod',
  'UDP ClusterIP',
  'NodePort from an external client',
  'no endpoints: ClusterIP refused',
  'LB IP from a source outside',
  'ETP Local NodePort',
];

const full = (process.env['KPNG_VM_SUITES'] ?? '').split(',').includes('nft-6.1-full');
const escape = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const e2e = await vmE2e('nft backend on kernel 6.1');
const guest = e2e.run
  ? await runVitestInVm({
      kernel: '6.1',
      packageDir: new URL('../../../../packages/nft/', import.meta.url).pathname,
      config: 'vitest.config.ts',
      files: ['test/backend.e2e.test.ts', 'test/lifecycle.e2e.test.ts'],
      ...(full ? {} : { testNamePattern: CORE_CASES.map(escape).join('|') }),
      env: { KPNG_E2E: 'required' },
      timeoutMs: 1_200_000,
      onOutput: (chunk) => process.env['KPNG_VM_VERBOSE'] === '1' && process.stdout.write(chunk),
    })
  : undefined;
// Guest tests the name filter left out are not this suite's tests: they are not listed as skipped.
const ran = (guest?.tests ?? []).filter((t) => t.status === 'passed' || t.status === 'failed');

describe.skipIf(!e2e.run)(`nft backend e2e on kernel 6.1 (VM, ${full ? 'every case' : 'core cases'})`, () => {
  it('the guest suite ran and finished', () => {
    expect(ran.length, guest?.output).toBeGreaterThan(0);
    expect(guest?.exitCode, guest?.output).toBe(0);
  });
  it.skipIf(full)('every core case ran in IPv4 and IPv6', () => {
    for (const name of CORE_CASES) {
      const families = ran.filter((t) => t.fullName.includes(name)).map((t) => /IPv[46]/.exec(t.fullName)?.[0]);
      expect([name, [...new Set(families)].sort()]).toEqual([name, ['IPv4', 'IPv6']]);
    }
  });
  for (const test of ran) {
    it(test.fullName, () => {
      expect(test.failureMessages.join('\n'), test.fullName).toBe('');
      expect(test.status).toBe('passed');
    });
  }
});
