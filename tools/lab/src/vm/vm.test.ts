import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runningQemus } from './qemu.js';
import { runInVm, VmError } from './vm.js';
import { vmE2e } from './vm-e2e.js';

const e2e = await vmE2e('lab vm');

// Each case boots its own VM (about 4 s under TCG): the few cases here are about boot and teardown.
describe.skipIf(!e2e.run)(
  'runInVm (boots a Debian kernel under QEMU)',
  () => {
    it('runs the command in the guest kernel, streams its output, returns its exit code, keeps writes in the guest', async () => {
      const chunks: string[] = [];
      // Written in the guest: lands in its tmpfs overlay, never in the host's file system.
      const marker = `/usr/kpng-vm-overlay-${process.pid}`;
      const result = await runInVm({
        command: [
          'sh',
          '-c',
          `uname -r; ip link add kube-ipvs0 type dummy && ipvsadm -A -t 198.19.0.1:80 -s rr && ipvsadm -Ln; echo "$GREETING"; pwd; touch ${marker}; exit 7`,
        ],
        env: { GREETING: "it's the guest" },
        cwd: '/usr/share',
        onOutput: (chunk) => chunks.push(chunk),
      });
      expect(result.exitCode).toBe(7);
      expect(result.output).toBe(chunks.join(''));
      expect(result.output).toContain(`${result.release}\n`);
      expect(result.output).toMatch(/TCP {2}198\.19\.0\.1:80 rr/);
      expect(result.output).toContain("it's the guest\n/usr/share\n");
      expect(existsSync(marker)).toBe(false);
      expect(runningQemus()).toBe(0);
    });

    // Its own bound, generous: a fresh clone fetches the 6.12 kernel package first, then boots it under
    // TCG beside the first test pass; 32 s in one CI-shaped run, over 120 s in the next.
    it(
      'boots the 6.12 kernel from bookworm-backports too (fetched through a private apt list)',
      { timeout: 360_000 },
      async () => {
        const result = await runInVm({
          kernel: '6.12',
          command: [
            'sh',
            '-c',
            'uname -r && ip link add kube-ipvs0 type dummy && ipvsadm -A -u 198.19.0.2:53 && ipvsadm -Ln',
          ],
        });
        expect(result.exitCode, result.output).toBe(0);
        expect(result.release).toMatch(/^6\.12\./);
        expect(result.output).toContain(`${result.release}\n`);
        expect(result.output).toMatch(/UDP {2}198\.19\.0\.2:53/);
      },
    );

    it('a guest kernel panic is a VmError naming the panic, not a hang', async () => {
      const run = runInVm({ command: ['sh', '-c', 'echo c > /proc/sysrq-trigger'], timeoutMs: 60_000 });
      await expect(run).rejects.toThrow(VmError);
      await expect(run).rejects.toMatchObject({ failure: 'no-status', message: expect.stringMatching(/kernel panic/) });
      expect(runningQemus()).toBe(0);
    });

    it('a job that outlives its timeout is a VmError and QEMU is killed', async () => {
      const run = runInVm({ command: ['sleep', '600'], timeoutMs: 5_000 });
      await expect(run).rejects.toMatchObject({ failure: 'timeout' });
      expect(runningQemus()).toBe(0);
    });
  },
  120_000,
);
