import koffi from 'koffi';

/**
 * The few libc calls a netlink socket needs, through koffi (prebuilt FFI binaries shipped inside the
 * npm package: no compiler, no install script). Node has no AF_NETLINK sockets of its own.
 */
const libc = koffi.load('libc.so.6');

export const sys = {
  socket: libc.func('int socket(int domain, int type, int protocol)') as (
    domain: number,
    type: number,
    protocol: number,
  ) => number,
  setsockopt: libc.func('int setsockopt(int fd, int level, int name, const void *value, uint32_t length)') as (
    fd: number,
    level: number,
    name: number,
    value: Buffer,
    length: number,
  ) => number,
  send: libc.func('intptr_t send(int fd, const void *buf, size_t length, int flags)') as (
    fd: number,
    buf: Buffer,
    length: number,
    flags: number,
  ) => number,
  recv: libc.func('intptr_t recv(int fd, _Out_ void *buf, size_t length, int flags)') as (
    fd: number,
    buf: Buffer,
    length: number,
    flags: number,
  ) => number,
  close: libc.func('int close(int fd)') as (fd: number) => number,
  setns: libc.func('int setns(int fd, int nstype)') as (fd: number, nstype: number) => number,
  errno: (): number => koffi.errno(),
};

export const AF_NETLINK = 16;
export const SOCK_RAW = 3;
export const SOCK_CLOEXEC = 0o2000000;
export const NETLINK_GENERIC = 16;
export const SOL_SOCKET = 1;
export const SO_RCVTIMEO = 20;
export const SO_RCVBUF = 8;
export const CLONE_NEWNET = 0x40000000;
