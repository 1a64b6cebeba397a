// Boots the lab's VM once (a Debian 6.1 kernel: IPVS, ipset, dummy links) and runs the guest suites
// (test/guest/*.guest.ts) inside it; each guest test is reported here as one test.
import { runVitestInVm, vmE2e, type GuestTest } from '@kpng/lab';
import { describe, expect, it } from 'vitest';
import { bundleClientNode, bundleKpngIpvs, bundleKubeProxy } from './kpng-ipvs-bundle.js';
import { e2eScenario } from './scenarios.js';

const e2e = await vmE2e('ipvs backend');
// The guest's program-level cases run kpng-ipvs and the compat kube-proxy, each from one bundled
// file, with client-node bundled beside them (see kpng-ipvs-bundle.ts; kpng-ipvs first: it empties
// the folder all three go to).
const bundled = e2e.run ? [await bundleKpngIpvs(), await bundleKubeProxy(), await bundleClientNode()] : [];
for (const { ms, runner } of bundled) console.log(`bundled for the guest in ${ms} ms: ${runner}`);
const guest = e2e.run
  ? await runVitestInVm({
      packageDir: new URL('..', import.meta.url).pathname,
      config: 'vitest.vm.config.ts',
      inputs: { 'scenario.json': JSON.stringify(e2eScenario()) },
      // `KPNG_VM_SUITES=ipvs-program-faults`: every drift kind in test/guest/program-faults.guest.ts.
      env: { KPNG_VM_SUITES: process.env['KPNG_VM_SUITES'] ?? '' },
      // `KPNG_VM_FILES=program-faults,seam`: only the guest files matching these filters (one boot either way).
      files: (process.env['KPNG_VM_FILES'] ?? '').split(',').filter((f) => f !== ''),
      // `KPNG_VM_TESTS='ipvs -> ipvs'`: only the guest tests whose names match (vitest's -t).
      ...(process.env['KPNG_VM_TESTS'] ? { testNamePattern: process.env['KPNG_VM_TESTS'] } : {}),
      // A budget for the whole guest run (one emulated CPU; a loaded host slows it several times), not an
      // assertion: ~1,000-1,150 s on CI's host; 1,800 s ran out at host loads of 10-35, where QEMU got
      // about half a core (2026-11-28).
      timeoutMs: 2_700_000,
      onOutput: (chunk) => process.env['KPNG_VM_VERBOSE'] === '1' && process.stdout.write(chunk),
    })
  : undefined;
// The swap matrix's Done-when table (test/guest/swap.guest.ts's SWAP-TABLE lines), printed here so
// that the VM lane's own output carries its counts.
const swapTable = [
  // without the guest reporter's colour codes
  ...(guest?.output ?? '').replace(/\x1b\[[\d;]*m/g, '').matchAll(/^.*?(SWAP-TABLE .*?)\r?$/gm),
].map((m) => m[1]!);
if (swapTable.length > 0) console.log(swapTable.join('\n'));

describe.skipIf(!e2e.run)('ipvs suites inside the VM (kernel 6.1)', () => {
  it('the guest suite ran and finished', () => {
    expect(guest?.tests.length, guest?.output).toBeGreaterThan(0);
    expect(guest?.exitCode, guest?.output).toBe(0);
  });

  const byFile = new Map<string, GuestTest[]>();
  for (const test of guest?.tests ?? []) byFile.set(test.file, [...(byFile.get(test.file) ?? []), test]);
  for (const [file, tests] of byFile) {
    describe(file.replace(/^.*\/test\/guest\//, ''), () => {
      for (const test of tests) {
        it.skipIf(test.status === 'skipped' || test.status === 'pending')(test.fullName, () => {
          expect(test.failureMessages.join('\n'), test.fullName).toBe('');
          expect(test.status).toBe('passed');
        });
      }
    });
  }
});
