import { isCanonicalIP } from '@kpng/core';
import { inNetns, type Execer } from '@kpng/kit';
import { DUMMY_LINK } from '../render/options.js';
import type { IpvsSysctl, SysctlReport } from './sysctls.js';

/**
 * The node's side of IPVS that is not IPVS: the dummy link holding Service addresses, and the
 * sysctls IPVS needs. Every command runs through the exec seam, inside `netns` when given.
 */
export class NodeHost {
  readonly #execer: Execer;
  readonly #prefix: readonly string[];

  constructor(execer: Execer, netns?: string) {
    this.#execer = execer;
    this.#prefix = inNetns(netns, []);
  }

  /** Creates `kube-ipvs0` if missing and sets it up (addresses on it are local: IPVS sees their traffic). */
  async ensureDummyLink(): Promise<void> {
    const shown = await this.#run(['ip', 'link', 'show', DUMMY_LINK], '', false);
    if (shown.exitCode !== 0) await this.#run(['ip', 'link', 'add', DUMMY_LINK, 'type', 'dummy']);
    await this.#run(['ip', 'link', 'set', DUMMY_LINK, 'up']);
  }

  async addresses(): Promise<string[]> {
    const { stdout } = await this.#run(['ip', '-j', 'addr', 'show', 'dev', DUMMY_LINK]);
    return parseLink(stdout).addresses;
  }

  /** kube-ipvs0's state for the drift check: undefined when it does not exist. */
  async inspectLink(): Promise<{ up: boolean; addresses: string[] } | undefined> {
    const result = await this.#run(['ip', '-j', 'addr', 'show', 'dev', DUMMY_LINK], '', false);
    return result.exitCode === 0 ? parseLink(result.stdout) : undefined;
  }

  /**
   * Adds and removes addresses in one `ip -batch` process. Each address must be canonical text (core's
   * render guard left out the rest): one that is not throws before `ip` starts, as no line of the
   * batch may carry anything but an address.
   */
  async changeAddresses(add: readonly string[], remove: readonly string[]): Promise<void> {
    const bad = [...add, ...remove].find((ip) => !isCanonicalIP(ip));
    if (bad !== undefined) throw new Error(`refusing to write ${JSON.stringify(bad).slice(0, 80)} to ip -batch`);
    const line = (verb: string, ip: string): string =>
      ip.includes(':')
        ? `addr ${verb} ${ip}/128 dev ${DUMMY_LINK}${verb === 'add' ? ' nodad' : ''}`
        : `addr ${verb} ${ip}/32 dev ${DUMMY_LINK}`;
    const commands = [...add.map((ip) => line('add', ip)), ...remove.map((ip) => line('del', ip))];
    if (commands.length > 0) await this.#run(['ip', '-batch', '-'], `${commands.join('\n')}\n`);
  }

  async deleteDummyLink(): Promise<void> {
    await this.#run(['ip', 'link', 'del', DUMMY_LINK], '', false);
  }

  /**
   * IPVS's sysctls (they exist once ip_vs is loaded, which opening the netlink family does), one
   * `sysctl` at a time: each read, written only when it differs, and each failure reported by name
   * (the caller judges it: see sysctls.ts). An IPv6 setting on a node without IPv6 is skipped.
   */
  async applySysctls(plan: readonly IpvsSysctl[]): Promise<SysctlReport> {
    const report: SysctlReport = { written: [], skipped: [], failed: [] };
    for (const { name, value, fatal, ipv6 } of plan) {
      const read = await this.#run(['sysctl', '-n', name], '', false);
      if (read.exitCode !== 0 && ipv6 === true) {
        report.skipped.push(name);
        continue;
      }
      if (read.exitCode === 0 && read.stdout.trim() === String(value)) continue;
      const write = await this.#run(['sysctl', '-q', '-w', `${name}=${value}`], '', false);
      if (write.exitCode === 0) report.written.push(name);
      else report.failed.push({ name, fatal, error: (write.stderr || read.stderr).trim().split('\n')[0] ?? '' });
    }
    return report;
  }

  async #run(
    argv: readonly string[],
    stdin = '',
    check = true,
  ): Promise<{ exitCode: number; stdout: string; stderr: string }> {
    const full = [...this.#prefix, ...argv];
    const result = await this.#execer.run(full, stdin);
    if (check && result.exitCode !== 0)
      throw new Error(`${full.join(' ')} exited with ${result.exitCode}: ${result.stderr.trim()}`);
    return result;
  }
}

/** `ip -j addr show dev kube-ipvs0`: whether it is up, and its addresses (not the link-local ones). */
function parseLink(stdout: string): { up: boolean; addresses: string[] } {
  const links = JSON.parse(stdout || '[]') as { flags?: string[]; addr_info?: { local?: string; scope?: string }[] }[];
  return {
    up: links.some((l) => l.flags?.includes('UP') === true),
    addresses: links
      .flatMap((l) => l.addr_info ?? [])
      .filter((a) => a.scope !== 'link')
      .flatMap((a) => (a.local === undefined ? [] : [a.local])),
  };
}
