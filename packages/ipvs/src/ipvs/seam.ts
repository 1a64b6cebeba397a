import type { ObservedRealServer, RealServer, VirtualServer } from './types.js';

/**
 * The kernel seam: IPVS's generic netlink commands, one method each. The real implementation is
 * `NetlinkIpvs`; `FakeIpvs` answers with the same errors the kernel gives (`IpvsError.code`:
 * EEXIST for a duplicate, ESRCH for a missing virtual server, ENOENT for a missing real server or
 * an unknown scheduler), checked against the kernel by the same cases (`ipvs-cases.ts`).
 */
export interface IpvsKernel {
  listVirtualServers(): VirtualServer[];
  listRealServers(vs: VirtualServer): ObservedRealServer[];
  addVirtualServer(vs: VirtualServer): void;
  /** Changes scheduler and persistence of an existing virtual server. */
  updateVirtualServer(vs: VirtualServer): void;
  deleteVirtualServer(vs: VirtualServer): void;
  addRealServer(vs: VirtualServer, rs: RealServer): void;
  updateRealServer(vs: VirtualServer, rs: RealServer): void;
  deleteRealServer(vs: VirtualServer, rs: RealServer): void;
  /** Connection timeouts in seconds (`ipvsadm --set`); 0 keeps the kernel's value. */
  setTimeouts(tcp: number, tcpFin: number, udp: number): void;
  /** Removes every virtual server (`ipvsadm -C`). */
  flush(): void;
  close(): void;
}

/** The seam's calls, as recorded by the fake and by `RecordingIpvs` around the real one. */
export type IpvsCall =
  | { readonly op: 'addVirtualServer' | 'updateVirtualServer' | 'deleteVirtualServer'; readonly vs: string }
  | {
      readonly op: 'addRealServer' | 'updateRealServer' | 'deleteRealServer';
      readonly vs: string;
      readonly rs: string;
      readonly weight: number;
    }
  | { readonly op: 'flush' };
