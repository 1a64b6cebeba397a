/** The errno values the IPVS netlink family answers with, by name (kernel `include/uapi/asm-generic/errno-base.h`). */
export const ERRNO: Readonly<Record<number, string>> = {
  1: 'EPERM',
  2: 'ENOENT',
  3: 'ESRCH',
  11: 'EAGAIN',
  12: 'ENOMEM',
  14: 'EFAULT',
  16: 'EBUSY',
  17: 'EEXIST',
  19: 'ENODEV',
  22: 'EINVAL',
  95: 'EOPNOTSUPP',
  97: 'EAFNOSUPPORT',
  105: 'ENOBUFS',
};

export function errnoName(errno: number): string {
  return ERRNO[errno] ?? `errno ${errno}`;
}

/** A netlink request the kernel refused (or a socket call that failed), with its errno kept. */
export class NetlinkError extends Error {
  readonly code: string;
  constructor(
    readonly errno: number,
    readonly operation: string,
  ) {
    super(`${operation}: ${errnoName(errno)}`);
    this.name = 'NetlinkError';
    this.code = errnoName(errno);
  }
}
