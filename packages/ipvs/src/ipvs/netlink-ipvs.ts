import { GenericNetlink } from '../netlink/genl.js';
import { NLM_F_DUMP } from '../netlink/socket.js';
import { u32 } from '../netlink/attributes.js';
import {
  CMD,
  CMD_ATTR,
  decodeDest,
  decodeDestStats,
  decodeService,
  decodeServiceStats,
  type IpvsStats,
  destFull,
  destId,
  IPVS_GENL_NAME,
  IPVS_GENL_VERSION,
  serviceFull,
  serviceId,
} from './codec.js';
import type { IpvsKernel } from './seam.js';
import {
  type ObservedRealServer,
  type RealServer,
  realServerKey,
  type VirtualServer,
  virtualServerKey,
} from './types.js';

export interface NetlinkIpvsOptions {
  /** Program the IPVS table of this network namespace (`ip netns` name or path). */
  readonly netns?: string;
}

/** The kernel seam over generic netlink (family `IPVS`): no `ipvsadm` process, no text parsing. */
export class NetlinkIpvs implements IpvsKernel {
  readonly #genl: GenericNetlink;

  constructor(options: NetlinkIpvsOptions = {}) {
    this.#genl = GenericNetlink.open(
      IPVS_GENL_NAME,
      IPVS_GENL_VERSION,
      options.netns === undefined ? {} : { netns: options.netns },
    );
  }

  listVirtualServers(): VirtualServer[] {
    return this.#genl
      .call(CMD.GET_SERVICE, [], NLM_F_DUMP, 'list virtual servers')
      .map(decodeService)
      .filter((vs): vs is VirtualServer => vs !== undefined);
  }

  listRealServers(vs: VirtualServer): ObservedRealServer[] {
    return this.#genl
      .call(CMD.GET_DEST, [serviceId(vs)], NLM_F_DUMP, `list real servers of ${virtualServerKey(vs)}`)
      .map((answer) => decodeDest(vs.family, answer))
      .filter((rs): rs is ObservedRealServer => rs !== undefined);
  }

  /** Every virtual server with its counters (`ipvsadm -Ln --stats`; `explain`, not the sync). */
  listVirtualServerStats(): { readonly vs: VirtualServer; readonly stats?: IpvsStats }[] {
    const out: { vs: VirtualServer; stats?: IpvsStats }[] = [];
    for (const answer of this.#genl.call(CMD.GET_SERVICE, [], NLM_F_DUMP, 'list virtual servers')) {
      const vs = decodeService(answer);
      const stats = decodeServiceStats(answer);
      if (vs !== undefined) out.push(stats === undefined ? { vs } : { vs, stats });
    }
    return out;
  }

  /** A virtual server's real servers with their counters. */
  listRealServerStats(vs: VirtualServer): { readonly rs: ObservedRealServer; readonly stats?: IpvsStats }[] {
    const out: { rs: ObservedRealServer; stats?: IpvsStats }[] = [];
    const answers = this.#genl.call(
      CMD.GET_DEST,
      [serviceId(vs)],
      NLM_F_DUMP,
      `list real servers of ${virtualServerKey(vs)}`,
    );
    for (const answer of answers) {
      const rs = decodeDest(vs.family, answer);
      const stats = decodeDestStats(answer);
      if (rs !== undefined) out.push(stats === undefined ? { rs } : { rs, stats });
    }
    return out;
  }

  addVirtualServer(vs: VirtualServer): void {
    this.#genl.call(CMD.NEW_SERVICE, [serviceFull(vs)], 0, `add virtual server ${virtualServerKey(vs)}`);
  }

  updateVirtualServer(vs: VirtualServer): void {
    this.#genl.call(CMD.SET_SERVICE, [serviceFull(vs)], 0, `update virtual server ${virtualServerKey(vs)}`);
  }

  deleteVirtualServer(vs: VirtualServer): void {
    this.#genl.call(CMD.DEL_SERVICE, [serviceId(vs)], 0, `delete virtual server ${virtualServerKey(vs)}`);
  }

  addRealServer(vs: VirtualServer, rs: RealServer): void {
    this.#genl.call(
      CMD.NEW_DEST,
      [serviceId(vs), destFull(vs, rs)],
      0,
      `add real server ${realServerKey(rs)} to ${virtualServerKey(vs)}`,
    );
  }

  updateRealServer(vs: VirtualServer, rs: RealServer): void {
    this.#genl.call(
      CMD.SET_DEST,
      [serviceId(vs), destFull(vs, rs)],
      0,
      `update real server ${realServerKey(rs)} of ${virtualServerKey(vs)}`,
    );
  }

  deleteRealServer(vs: VirtualServer, rs: RealServer): void {
    this.#genl.call(
      CMD.DEL_DEST,
      [serviceId(vs), destId(rs)],
      0,
      `delete real server ${realServerKey(rs)} of ${virtualServerKey(vs)}`,
    );
  }

  setTimeouts(tcp: number, tcpFin: number, udp: number): void {
    const attributes = [
      [CMD_ATTR.TIMEOUT_TCP, tcp],
      [CMD_ATTR.TIMEOUT_TCP_FIN, tcpFin],
      [CMD_ATTR.TIMEOUT_UDP, udp],
    ] as const;
    this.#genl.call(
      CMD.SET_CONFIG,
      attributes.filter(([, v]) => v > 0).map(([type, v]) => [type, u32(v)] as const),
      0,
      'set timeouts',
    );
  }

  flush(): void {
    this.#genl.call(CMD.FLUSH, [], 0, 'flush virtual servers');
  }

  close(): void {
    this.#genl.close();
  }
}
