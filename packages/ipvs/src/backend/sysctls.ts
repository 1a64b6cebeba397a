/**
 * The sysctls ipvs mode needs, as upstream's ipvs NewProxier sets them (pkg/proxy/ipvs, v1.28-v1.34):
 * each written alone, only when its value differs, and a failure fatal exactly where upstream's is
 * (every one of these but IPv6 forwarding, which upstream never writes: kpng's IPv6 virtual servers
 * forward to pods, so it is set, but only on a node with IPv6, and a refusal is a warning).
 */
import type { IpvsConfig } from '../render/options.js';

export interface IpvsSysctl {
  /** Dotted, as `sysctl` takes it. */
  readonly name: string;
  readonly value: number;
  /** A failure stops the start (upstream returns the error from NewProxier). */
  readonly fatal: boolean;
  /** Only where the node has IPv6 (`/proc/sys/net/ipv6` exists): absent, it is skipped, not failed. */
  readonly ipv6?: boolean;
}

/** conn_reuse_mode is set to 0 on kernels from 4.1 up to (not including) 5.9, where it was fixed (kubernetes#93297). */
const CONN_REUSE_FROM: readonly [number, number] = [4, 1];
const CONN_REUSE_FIXED: readonly [number, number] = [5, 9];

/** `[major, minor]` of a kernel release (`6.1.0-27-amd64` -> [6, 1]); undefined when it does not parse. */
export function kernelVersion(release: string): [number, number] | undefined {
  const m = /^(\d+)\.(\d+)/.exec(release);
  return m === null ? undefined : [Number(m[1]), Number(m[2])];
}

const atLeast = (v: readonly [number, number], w: readonly [number, number]) =>
  v[0] > w[0] || (v[0] === w[0] && v[1] >= w[1]);

export function ipvsSysctls(config: Pick<IpvsConfig, 'strictARP'>, kernelRelease: string): IpvsSysctl[] {
  const settings: IpvsSysctl[] = [{ name: 'net.ipv4.vs.conntrack', value: 1, fatal: true }];
  const version = kernelVersion(kernelRelease);
  if (version !== undefined && atLeast(version, CONN_REUSE_FROM) && !atLeast(version, CONN_REUSE_FIXED))
    settings.push({ name: 'net.ipv4.vs.conn_reuse_mode', value: 0, fatal: true });
  settings.push(
    { name: 'net.ipv4.vs.expire_nodest_conn', value: 1, fatal: true },
    { name: 'net.ipv4.vs.expire_quiescent_template', value: 1, fatal: true },
    { name: 'net.ipv4.ip_forward', value: 1, fatal: true },
  );
  if (config.strictARP) {
    settings.push(
      { name: 'net.ipv4.conf.all.arp_ignore', value: 1, fatal: true },
      { name: 'net.ipv4.conf.all.arp_announce', value: 2, fatal: true },
    );
  }
  settings.push({ name: 'net.ipv6.conf.all.forwarding', value: 1, fatal: false, ipv6: true });
  return settings;
}

/** What applying a plan did: each failure by name, with whether it stops the start. */
export interface SysctlReport {
  readonly written: string[];
  /** Not applicable here (an IPv6 setting on a node without IPv6). */
  readonly skipped: string[];
  readonly failed: { readonly name: string; readonly fatal: boolean; readonly error: string }[];
}
