import { existsSync } from 'node:fs';
import { type KernelE2e, kernelE2e } from '../netns/e2e-mode.js';
import { ensureKernel } from './fetch-kernel.js';
import { type KernelId, KERNELS } from './kernels.js';

/**
 * `kernelE2e` for suites that run inside the lab's VM: they run where QEMU, busybox-static, kmod and
 * the kernel (fetched into the cache on first use) are available; under `KPNG_E2E=required` a missing
 * piece fails the suite instead of skipping it.
 */
export function vmE2e(
  suite: string,
  kernel: KernelId = '6.1',
  env: NodeJS.ProcessEnv = process.env,
): Promise<KernelE2e> {
  return kernelE2e(`${suite} (VM, kernel ${kernel})`, { env, probe: () => vmCapability(kernel) });
}

async function vmCapability(kernel: KernelId): Promise<{ ok: boolean; reason?: string }> {
  if (process.platform !== 'linux')
    return { ok: false, reason: `the lab's VM needs Linux (this is ${process.platform})` };
  for (const [bin, pkg] of [
    ['/usr/bin/qemu-system-x86_64', 'qemu-system-x86'],
    ['/bin/busybox', 'busybox-static'],
    ['/usr/sbin/depmod', 'kmod'],
  ] as const) {
    if (!existsSync(bin)) return { ok: false, reason: `${bin} is missing (apt-get install ${pkg})` };
  }
  try {
    await ensureKernel(KERNELS[kernel]);
    return { ok: true };
  } catch (error) {
    return { ok: false, reason: `cannot fetch kernel ${kernel}: ${(error as Error).message}` };
  }
}
