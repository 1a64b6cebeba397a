import { type Attribute, cString, decodeAttributes, encodeAttributes } from './attributes.js';
import { NetlinkError } from './errno.js';
import { NLM_F_REQUEST, NetlinkSocket, type NetlinkSocketOptions } from './socket.js';
import { NETLINK_GENERIC } from './libc.js';

const GENL_ID_CTRL = 0x10;
const CTRL_CMD_GETFAMILY = 3;
const CTRL_ATTR_FAMILY_ID = 1;
const CTRL_ATTR_FAMILY_NAME = 2;
const GENL_HEADER = 4;

/** One generic netlink family (resolved by name through `nlctrl`) on its own socket. */
export class GenericNetlink {
  readonly #socket: NetlinkSocket;
  readonly #family: number;
  readonly #version: number;

  private constructor(socket: NetlinkSocket, family: number, version: number) {
    this.#socket = socket;
    this.#family = family;
    this.#version = version;
  }

  static open(name: string, version: number, options: NetlinkSocketOptions = {}): GenericNetlink {
    const socket = NetlinkSocket.open(NETLINK_GENERIC, options);
    try {
      const [answer] = socket.request(
        GENL_ID_CTRL,
        NLM_F_REQUEST,
        genlMessage(CTRL_CMD_GETFAMILY, 1, [[CTRL_ATTR_FAMILY_NAME, cString(name)]]),
        `resolve generic netlink family ${name}`,
      );
      const id =
        answer === undefined
          ? undefined
          : decodeAttributes(answer.subarray(GENL_HEADER)).get(CTRL_ATTR_FAMILY_ID)?.readUInt16LE(0);
      if (id === undefined) throw new NetlinkError(2, `resolve generic netlink family ${name}`);
      return new GenericNetlink(socket, id, version);
    } catch (error) {
      socket.close();
      throw error;
    }
  }

  /** Sends a command; returns each answer's attributes (a dump's entries, or none for an ack). */
  call(command: number, attributes: readonly Attribute[], flags: number, operation: string): Map<number, Buffer>[] {
    return this.#socket
      .request(this.#family, flags, genlMessage(command, this.#version, attributes), operation)
      .map((body) => decodeAttributes(body.subarray(GENL_HEADER)));
  }

  close(): void {
    this.#socket.close();
  }
}

function genlMessage(command: number, version: number, attributes: readonly Attribute[]): Buffer {
  const header = Buffer.from([command, version, 0, 0]);
  return Buffer.concat([header, encodeAttributes(attributes)]);
}
