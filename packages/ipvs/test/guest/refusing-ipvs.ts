// The kernel seam around the real one, refusing every write while `refusing` is set (as the kernel
// refuses a call: a NetlinkError with an errno), for the injected-failure cases: netlink has no
// binary a PATH shim could replace.
import type { IpvsKernel } from '../../src/ipvs/seam.js';
import type { ObservedRealServer, RealServer, VirtualServer } from '../../src/ipvs/types.js';
import { NetlinkError } from '../../src/netlink/errno.js';

const ENOMEM = 12;

export class RefusingIpvs implements IpvsKernel {
  refusing = false;
  /** Writes refused so far. */
  refused = 0;
  readonly #inner: IpvsKernel;

  constructor(inner: IpvsKernel) {
    this.#inner = inner;
  }

  listVirtualServers(): VirtualServer[] {
    return this.#inner.listVirtualServers();
  }
  listRealServers(vs: VirtualServer): ObservedRealServer[] {
    return this.#inner.listRealServers(vs);
  }
  addVirtualServer(vs: VirtualServer): void {
    this.#write('addVirtualServer', () => this.#inner.addVirtualServer(vs));
  }
  updateVirtualServer(vs: VirtualServer): void {
    this.#write('updateVirtualServer', () => this.#inner.updateVirtualServer(vs));
  }
  deleteVirtualServer(vs: VirtualServer): void {
    this.#write('deleteVirtualServer', () => this.#inner.deleteVirtualServer(vs));
  }
  addRealServer(vs: VirtualServer, rs: RealServer): void {
    this.#write('addRealServer', () => this.#inner.addRealServer(vs, rs));
  }
  updateRealServer(vs: VirtualServer, rs: RealServer): void {
    this.#write('updateRealServer', () => this.#inner.updateRealServer(vs, rs));
  }
  deleteRealServer(vs: VirtualServer, rs: RealServer): void {
    this.#write('deleteRealServer', () => this.#inner.deleteRealServer(vs, rs));
  }
  setTimeouts(tcp: number, tcpFin: number, udp: number): void {
    this.#inner.setTimeouts(tcp, tcpFin, udp);
  }
  flush(): void {
    this.#write('flush', () => this.#inner.flush());
  }
  close(): void {
    this.#inner.close();
  }

  #write(operation: string, call: () => void): void {
    if (this.refusing) {
      this.refused++;
      throw new NetlinkError(ENOMEM, operation);
    }
    call();
  }
}
