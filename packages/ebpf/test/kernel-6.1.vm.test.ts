// The socket load balancer on Debian's 6.1 kernel in the lab's VM (bookworm, and many LTS
// distributions, run 6.1): sock-lb.cases.ts (the cases of sock-lb.kernel.test.ts) inside one guest
// boot (one case left out, below). It loads bpf/sock_lb.o through libbpf (the host's libbpf.so.1 and
// koffi's addon, over the guest's 9p view of the host root) and attaches it to a cgroup in the
// guest's cgroup v2 mount: ClusterIP TCP and UDP (connected and unconnected) in IPv4 and IPv6 with
// the Service as peer, session affinity, ECONNREFUSED / EHOSTUNREACH, an endpoint change, an
// outsider untouched, detaching; and the stale UDP walker, which on 6.1 (no bpf_sock_destroy) loads
// its counting build and counts the socket as left.
//
// The guest runs one bundled script with plain `node` (guest/sock-lb.guest.ts, bundled here before
// the boot), not vitest: under the emulated CPU vitest's start and its TypeScript transforms and
// imports took ~115 s of a ~265 s guest run, more than the cases' ~150 s. The BPF objects are this
// package's global setup's (test/build-objects.ts, run on the host before this file).
import { bundleForGuest, runScriptInVm, vmE2e } from '@kpng/lab';
import { describe, expect, it } from 'vitest';

/**
 * Every case but the 10,000-element batch case (~30 s of TCG at load ~34; map batches are not a 6.1
 * question: BPF_MAP_*_BATCH came in 5.6 and the first sync's batch writes run in every other case).
 */
const SKIPPED = '10,000 elements';
const packageDir = new URL('..', import.meta.url).pathname;

const e2e = await vmE2e('ebpf socket load balancer on kernel 6.1');
const bundled = e2e.run
  ? await bundleForGuest({
      entry: new URL('guest/sock-lb.guest.ts', import.meta.url).pathname,
      // Under the package: koffi (a native addon, left out of the bundle) resolves from its node_modules.
      dir: `${packageDir}.cache/vm`,
      name: 'sock-lb.guest.mjs',
      external: [/^koffi(\/|$)/],
    })
  : undefined;
if (bundled) console.log(`bundled for the guest in ${bundled.ms} ms: ${bundled.path}`);
const guest = bundled
  ? await runScriptInVm({
      kernel: '6.1',
      packageDir,
      script: bundled.path,
      args: [SKIPPED],
      env: { KPNG_E2E: 'required' },
      // A budget for the whole guest run (one emulated CPU on a shared host), not an assertion.
      timeoutMs: 900_000,
      onOutput: (chunk) => process.env['KPNG_VM_VERBOSE'] === '1' && process.stdout.write(chunk),
    })
  : undefined;
const ran = (guest?.tests ?? []).filter((t) => t.status === 'passed' || t.status === 'failed');

describe.skipIf(!e2e.run)('ebpf socket load balancer on kernel 6.1 (VM)', () => {
  it('the guest suite ran every case of the file but the one left out, and finished', () => {
    expect(ran.length, guest?.output).toBe((guest?.tests.length ?? 0) - 1);
    expect(ran.length, guest?.output).toBeGreaterThanOrEqual(10);
    expect(ran.some((t) => t.fullName.includes(SKIPPED))).toBe(false);
    expect(guest?.exitCode, guest?.output).toBe(0);
  });
  it('the guest ran kernel 6.1: the stale UDP case took its counting branch', () => {
    expect(guest?.output).toMatch(/KPNG-KERNEL 6\.1\./);
  });
  for (const test of ran) {
    it(test.fullName, () => {
      expect(test.failureMessages.join('\n'), test.fullName).toBe('');
      expect(test.status).toBe('passed');
    });
  }
});
