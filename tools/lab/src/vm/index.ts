// The lab's kernel VM: a Debian kernel under QEMU with the host's root shared read-only.
export { vmCacheDir } from './cache.js';
export { ensureKernel, type CachedKernel } from './fetch-kernel.js';
export { ensureInitramfs } from './initramfs.js';
export { KERNELS, type KernelId, type KernelSpec } from './kernels.js';
export { runningQemus } from './qemu.js';
export { jobMount, runInVm, VmError, type VmFailure, type VmRunOptions, type VmRunResult } from './vm.js';
export { vmE2e } from './vm-e2e.js';
export { bundleForGuest, type GuestBundleOptions } from './guest-bundle.js';
export { runScriptInVm, type ScriptInVmOptions } from './script-in-vm.js';
export {
  IN_VM_ENV,
  VM_INPUTS_ENV,
  runVitestInVm,
  type GuestTest,
  type VitestInVmOptions,
  type VitestInVmResult,
} from './vitest-in-vm.js';
