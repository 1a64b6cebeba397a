import { closeSync, openSync } from 'node:fs';
import { NetlinkError } from './errno.js';
import { AF_NETLINK, CLONE_NEWNET, SO_RCVBUF, SO_RCVTIMEO, SOCK_CLOEXEC, SOCK_RAW, SOL_SOCKET, sys } from './libc.js';

export const NLM_F_REQUEST = 0x1;
export const NLM_F_ACK = 0x4;
export const NLM_F_DUMP = 0x300;
const NLMSG_ERROR = 2;
const NLMSG_DONE = 3;
const HEADER = 16;
const RECEIVE_BUFFER = 1 << 20;

export interface NetlinkSocketOptions {
  /** Open the socket inside this network namespace (`ip netns` name or a path); the socket stays there. */
  readonly netns?: string;
  /** How long one receive may wait for the kernel; default 5 s. A netlink answer never takes that long. */
  readonly timeoutMs?: number;
}

/**
 * One netlink socket, synchronous request/response: the kernel answers a netlink request inside the
 * `send` call, so a blocking `recv` (bounded by SO_RCVTIMEO) costs microseconds, not an event-loop stall.
 */
export class NetlinkSocket {
  readonly #fd: number;
  readonly #buffer = Buffer.alloc(RECEIVE_BUFFER);
  #seq = Math.floor(Math.random() * 0x7fffffff);
  #closed = false;

  private constructor(fd: number) {
    this.#fd = fd;
  }

  static open(protocol: number, options: NetlinkSocketOptions = {}): NetlinkSocket {
    const fd = inNamespace(options.netns, () => sys.socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, protocol));
    if (fd < 0) throw new NetlinkError(sys.errno(), 'socket(AF_NETLINK)');
    const timeout = Buffer.alloc(16);
    const ms = options.timeoutMs ?? 5_000;
    timeout.writeBigInt64LE(BigInt(Math.floor(ms / 1000)), 0);
    timeout.writeBigInt64LE(BigInt((ms % 1000) * 1000), 8);
    const size = Buffer.alloc(4);
    size.writeInt32LE(RECEIVE_BUFFER);
    if (
      sys.setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, timeout, 16) !== 0 ||
      sys.setsockopt(fd, SOL_SOCKET, SO_RCVBUF, size, 4) !== 0
    ) {
      const errno = sys.errno();
      sys.close(fd);
      throw new NetlinkError(errno, 'setsockopt');
    }
    return new NetlinkSocket(fd);
  }

  /**
   * Sends one message and returns the payloads (after the netlink header) of every answer: the
   * dump's messages until NLMSG_DONE, or nothing but the acknowledgement. A negative ack throws.
   */
  request(type: number, flags: number, payload: Buffer, operation: string): Buffer[] {
    if (this.#closed) throw new Error(`netlink socket closed (${operation})`);
    const seq = (this.#seq = (this.#seq + 1) & 0x7fffffff);
    const message = Buffer.alloc(HEADER + payload.length);
    message.writeUInt32LE(message.length, 0);
    message.writeUInt16LE(type, 4);
    message.writeUInt16LE(NLM_F_REQUEST | NLM_F_ACK | flags, 6);
    message.writeUInt32LE(seq, 8);
    payload.copy(message, HEADER);
    if (sys.send(this.#fd, message, message.length, 0) < 0) throw new NetlinkError(sys.errno(), `${operation} (send)`);
    const answers: Buffer[] = [];
    for (;;) {
      const n = sys.recv(this.#fd, this.#buffer, this.#buffer.length, 0);
      if (n < 0) throw new NetlinkError(sys.errno(), `${operation} (recv)`);
      for (let offset = 0; offset + HEADER <= n;) {
        const length = this.#buffer.readUInt32LE(offset);
        if (length < HEADER || offset + length > n) break;
        const kind = this.#buffer.readUInt16LE(offset + 4);
        const mine = this.#buffer.readUInt32LE(offset + 8) === seq;
        const body = Buffer.from(this.#buffer.subarray(offset + HEADER, offset + length));
        offset += (length + 3) & ~3;
        if (!mine) continue;
        if (kind === NLMSG_DONE) return answers;
        if (kind === NLMSG_ERROR) {
          const error = body.readInt32LE(0);
          if (error !== 0) throw new NetlinkError(-error, operation);
          return answers;
        }
        answers.push(body);
      }
    }
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    sys.close(this.#fd);
  }
}

/**
 * Runs `create` with this thread in the given network namespace, then switches back. setns affects
 * the calling thread only and JavaScript runs nothing else meanwhile; a socket keeps the namespace
 * it was created in. Never falls back to the current namespace when the target cannot be entered.
 */
function inNamespace<T>(netns: string | undefined, create: () => T): T {
  if (netns === undefined) return create();
  const target = openSync(netns.includes('/') ? netns : `/run/netns/${netns}`, 'r');
  const self = openSync('/proc/thread-self/ns/net', 'r');
  try {
    if (sys.setns(target, CLONE_NEWNET) !== 0) throw new NetlinkError(sys.errno(), `setns(${netns})`);
    try {
      return create();
    } finally {
      if (sys.setns(self, CLONE_NEWNET) !== 0)
        throw new NetlinkError(sys.errno(), 'setns back to the original namespace');
    }
  } finally {
    closeSync(target);
    closeSync(self);
  }
}
