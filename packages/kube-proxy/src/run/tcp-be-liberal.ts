/**
 * Whether the kernel's conntrack is TCP-liberal, read as upstream's iptables proxier reads it at
 * start (`nf_conntrack_tcp_be_liberal`, after the conntrack sysctls were written): non-zero means
 * out-of-window segments are not marked INVALID, so the `KUBE-FORWARD` INVALID drop is not
 * installed. The kernel decides, not `conntrack.tcpBeLiberal` alone: a node whose administrator set
 * the sysctl gets no drop rule, and a setting the kernel refused leaves the rule in place.
 */
import type { Logger } from '@kpng/core';
import type { SysctlAccess } from './sysctl.js';

export const TCP_BE_LIBERAL = 'net/netfilter/nf_conntrack_tcp_be_liberal';

/** Unreadable (no conntrack module, no /proc/sys) reads as not liberal, as upstream. */
export async function kernelTcpBeLiberal(access: Pick<SysctlAccess, 'read'>, log: Logger): Promise<boolean> {
  let value: number;
  try {
    value = await access.read(TCP_BE_LIBERAL);
  } catch {
    return false;
  }
  if (!Number.isFinite(value) || value === 0) return false;
  log.info('nf_conntrack_tcp_be_liberal set, not installing DROP rules for INVALID packets');
  return true;
}
