/**
 * The guest's `/init` (busybox sh, inside the initramfs): load the 9p/overlay modules, mount the
 * host's root read-only over 9p with a tmpfs overlay on top, bind the kernel's modules folder from
 * the cache, mount the writable job share, and `switch_root` into the job script. Any failure before
 * the job runs prints a `kpng-vm:` line on the console and reboots, which ends QEMU (`-no-reboot`).
 */
import { posix } from 'node:path';

export const JOB_MOUNT = '/kpng-job';
export const HOST_ROOT_TAG = 'hostroot';
export const JOB_TAG = 'kpngjob';

export function initScript(modulesDir: string, release: string): string {
  const ninep = 'trans=virtio,version=9p2000.L,msize=512000';
  return `#!/bin/busybox sh
/bin/busybox --install -s /bin
export PATH=/bin
fail() { echo "kpng-vm: $*"; echo b > /proc/sysrq-trigger; sleep 10; }
mount -t proc proc /proc && mount -t sysfs sysfs /sys && mount -t devtmpfs devtmpfs /dev || fail "cannot mount /proc, /sys, /dev"
for m in $(cat /modules/order); do insmod /modules/$m || fail "insmod $m"; done
mkdir -p /lower /rw /newroot
mount -t 9p -o ${ninep},ro,cache=loose ${HOST_ROOT_TAG} /lower || fail "cannot mount the host root over 9p"
mount -t tmpfs -o mode=0755 tmpfs /rw && mkdir -p /rw/upper /rw/work || fail "cannot mount the overlay's tmpfs"
mount -t overlay -o lowerdir=/lower,upperdir=/rw/upper,workdir=/rw/work overlay /newroot || fail "cannot mount the overlay"
mkdir -p /newroot${JOB_MOUNT} /newroot/lib/modules/${release}
mount -t 9p -o ${ninep} ${JOB_TAG} /newroot${JOB_MOUNT} || fail "cannot mount the job share"
mount --bind /lower${modulesDir} /newroot/lib/modules/${release} || fail "cannot bind the kernel modules"
for d in proc sys dev; do mount --move /$d /newroot/$d; done
exec switch_root /newroot /bin/sh ${JOB_MOUNT}/job.sh
`;
}

export interface JobScriptOptions {
  readonly command: readonly string[];
  readonly cwd: string;
  readonly env: Readonly<Record<string, string>>;
}

/**
 * The job (host's /bin/sh, in the switched root): a fresh /run, /tmp and netns folder, loopback up,
 * then the command with its output on the second serial port (raw, so bytes arrive unchanged). Its
 * exit status lands in the job share; no status file means the job never finished.
 *
 * A working directory under /tmp (a checkout cloned there) keeps the host's /tmp as the overlay
 * shows it, still writable and still the guest's own: a fresh tmpfs would hide the checkout.
 */
export function jobScript(options: JobScriptOptions): string {
  const exports = Object.entries(options.env)
    .map(([name, value]) => `export ${name}=${shellQuote(value)}`)
    .join('\n');
  const freshTmp = underTmp(options.cwd) ? '' : ' mount -t tmpfs -o mode=1777 tmpfs /tmp;';
  return `#!/bin/sh
mount -t tmpfs -o mode=0755 tmpfs /run;${freshTmp} mkdir -p /run/netns
mount -t cgroup2 cgroup2 /sys/fs/cgroup 2>/dev/null
stty -F /dev/ttyS1 raw -echo
exec >/dev/ttyS1 2>&1 </dev/null
hostname kpng-vm; ip link set lo up
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root
${exports}
cd ${shellQuote(options.cwd)} && ${options.command.map(shellQuote).join(' ')}
echo $? > ${JOB_MOUNT}/status.tmp && mv ${JOB_MOUNT}/status.tmp ${JOB_MOUNT}/status
sync
echo b > /proc/sysrq-trigger
`;
}

export function shellQuote(value: string): string {
  return `'${value.replaceAll("'", `'\\''`)}'`;
}

/** Whether `path` is /tmp or below it (after resolving `.` and `..`). */
function underTmp(path: string): boolean {
  const resolved = posix.resolve('/', path);
  return resolved === '/tmp' || resolved.startsWith('/tmp/');
}
