// The nft backend's kernel e2e (packages/nft/test/backend.e2e.test.ts) on Debian's 6.1 kernel in the
// lab's VM: the nft README says kernels before 6.2 need a different chain-deletion order, and 6.1 is
// what Debian 12 and many LTS distributions run. Opt-in (`KPNG_VM_SUITES=nft-6.1`, see vitest.config.ts): it adds 2-4 min
// under TCG. Passed 54 of 54 when last run (2026-11-24). Each guest test is reported here.
import { describe, expect, it } from 'vitest';
import { runVitestInVm } from './vitest-in-vm.js';
import { vmE2e } from './vm-e2e.js';

const enabled = (process.env['KPNG_VM_SUITES'] ?? '').split(',').includes('nft-6.1');
if (!enabled) console.warn('VM suite "nft e2e on kernel 6.1" not run: set KPNG_VM_SUITES=nft-6.1 (adds 2-4 min)');
const e2e = enabled ? await vmE2e('nft backend on kernel 6.1') : { run: false };
const guest = e2e.run
  ? await runVitestInVm({
      kernel: '6.1',
      packageDir: new URL('../../../../packages/nft/', import.meta.url).pathname,
      config: 'vitest.config.ts',
      files: ['test/backend.e2e.test.ts'],
      env: { KPNG_E2E: 'required' },
      timeoutMs: 1_200_000,
      onOutput: (chunk) => process.env['KPNG_VM_VERBOSE'] === '1' && process.stdout.write(chunk),
    })
  : undefined;

describe.skipIf(!e2e.run)('nft backend e2e on kernel 6.1 (VM, KPNG_VM_SUITES=nft-6.1)', () => {
  it('the guest suite ran and finished', () => {
    expect(guest?.tests.length, guest?.output).toBeGreaterThan(0);
    expect(guest?.exitCode, guest?.output).toBe(0);
  });
  for (const test of guest?.tests ?? []) {
    it.skipIf(test.status === 'skipped' || test.status === 'pending')(test.fullName, () => {
      expect(test.failureMessages.join('\n'), test.fullName).toBe('');
      expect(test.status).toBe('passed');
    });
  }
});
