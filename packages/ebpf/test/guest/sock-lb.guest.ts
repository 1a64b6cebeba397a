// The socket load balancer's cases (../sock-lb.cases.ts) inside the lab's VM, as one bundled script
// run by plain `node` (kernel-6.1.vm.test.ts bundles it and boots the guest): no vitest and no
// TypeScript transform under the emulated CPU. Arguments: substrings of the case names to skip.
import { kernelE2e } from '@kpng/lab';
import { guestExpect, runGuestSuite } from '@kpng/lab/guest';
import { sockLbSuite } from '../sock-lb.cases.js';

const skipped = process.argv.slice(2);
// KPNG_E2E=required in the guest: a kernel without what the suite needs throws here (exit 1, no report).
await kernelE2e('ebpf socket load balancer');
const code = await runGuestSuite(sockLbSuite(guestExpect), {
  file: 'test/sock-lb.kernel.test.ts',
  skip: (name) => skipped.some((s) => name.includes(s)),
  // vitest's budgets in the guest before this script: --hookTimeout=300000 --testTimeout=180000 (scaled by 3 in the VM).
  hookTimeoutMs: 100_000,
  caseTimeoutMs: 60_000,
});
// The lab's servers are stopped by afterAll; nothing else must keep the guest's job running.
process.exit(code);
