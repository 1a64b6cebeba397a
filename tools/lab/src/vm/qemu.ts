import { spawnChild, type SpawnedChild, type SpawnOptions } from '@kpng/kit';

/** Every QEMU this process started and that still runs: killed on exit, whatever ends the process. */
const running = new Set<SpawnedChild>();
let hooked = false;

/** The guest gets no input; `onStdout` is the job's serial port, `onStderr` QEMU's own messages. */
export function spawnQemu(args: readonly string[], output: Pick<SpawnOptions, 'onStdout' | 'onStderr'>): SpawnedChild {
  hookExit();
  const child = spawnChild(['qemu-system-x86_64', ...args], output);
  running.add(child);
  void child.exited.then(() => running.delete(child));
  return child;
}

export function killQemu(child: SpawnedChild): void {
  child.kill('SIGKILL');
}

export function runningQemus(): number {
  return running.size;
}

function hookExit(): void {
  if (hooked) return;
  hooked = true;
  const killAll = (): void => {
    for (const child of running) killQemu(child);
  };
  process.once('exit', killAll);
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      killAll();
      process.kill(process.pid, signal);
    });
  }
}

export interface QemuArgsOptions {
  readonly vmlinux: string;
  readonly initramfs: string;
  readonly jobDir: string;
  readonly consoleLog: string;
  readonly memoryMiB: number;
  readonly cpus: number;
  readonly hostRootTag: string;
  readonly jobTag: string;
}

/**
 * TCG only: /dev/kvm here is a nested paravirtual KVM that cannot run stock kernels. `-no-reboot`
 * turns the guest's reboot (job done, or `panic=-1`) into QEMU exiting.
 */
export function qemuArgs(o: QemuArgsOptions): string[] {
  return [
    '-accel',
    'tcg',
    '-M',
    'pc',
    '-cpu',
    'max',
    '-m',
    String(o.memoryMiB),
    '-smp',
    String(o.cpus),
    '-nodefaults',
    '-no-user-config',
    '-display',
    'none',
    '-no-reboot',
    '-kernel',
    o.vmlinux,
    '-initrd',
    o.initramfs,
    '-append',
    'console=ttyS0 panic=-1 quiet loglevel=4 nokaslr mitigations=off tsc=reliable',
    '-serial',
    `file:${o.consoleLog}`,
    '-serial',
    'stdio',
    '-virtfs',
    `local,path=/,mount_tag=${o.hostRootTag},security_model=none,readonly=on,multidevs=remap`,
    '-virtfs',
    `local,path=${o.jobDir},mount_tag=${o.jobTag},security_model=none`,
  ];
}
