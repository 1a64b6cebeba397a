import type { Execer, ExecResult } from '@kpng/kit';

/**
 * The `ip` and `sysctl` commands `NodeHost` runs, answered from memory: the dummy link, its
 * addresses (refusing a duplicate add or a missing delete as `ip -batch` does) and sysctl values.
 */
export class FakeHostExecer implements Execer {
  link = false;
  /** `ip link set kube-ipvs0 up` sets it; a test sets it false as `ip link set … down` would. */
  up = false;
  readonly addresses = new Set<string>();
  /** The node's sysctls and their values (a name absent here does not exist, as without IPv6). */
  readonly sysctls = new Map<string, string>(
    [
      'net.ipv4.vs.conntrack',
      'net.ipv4.vs.conn_reuse_mode',
      'net.ipv4.vs.expire_nodest_conn',
      'net.ipv4.vs.expire_quiescent_template',
      'net.ipv4.ip_forward',
      'net.ipv4.conf.all.arp_ignore',
      'net.ipv4.conf.all.arp_announce',
      'net.ipv6.conf.all.forwarding',
    ].map((name) => [name, name.endsWith('conn_reuse_mode') ? '1' : '0']),
  );
  /** Sysctls whose write fails (read-only here, as in a container without the privilege). */
  readonly readOnly = new Set<string>();
  readonly commands: string[] = [];

  async run(argv: readonly string[], stdin: string): Promise<ExecResult> {
    const args = argv[0] === 'ip' && argv[1] === 'netns' ? argv.slice(4) : [...argv];
    this.commands.push(args.join(' '));
    const ok = (stdout = ''): ExecResult => ({ exitCode: 0, stdout, stderr: '' });
    const fail = (stderr: string): ExecResult => ({ exitCode: 1, stdout: '', stderr });
    const line = args.join(' ');
    if (line === 'ip link show kube-ipvs0')
      return this.link ? ok('kube-ipvs0') : fail('Device "kube-ipvs0" does not exist.');
    if (line === 'ip link add kube-ipvs0 type dummy')
      return this.link ? fail('RTNETLINK answers: File exists') : ((this.link = true), ok());
    if (line === 'ip link set kube-ipvs0 up')
      return this.link ? ((this.up = true), ok()) : fail('Cannot find device "kube-ipvs0"');
    if (line === 'ip link del kube-ipvs0')
      return this.link
        ? ((this.link = false), (this.up = false), this.addresses.clear(), ok())
        : fail('Cannot find device');
    if (line === 'ip -j addr show dev kube-ipvs0') {
      if (!this.link) return fail('Device "kube-ipvs0" does not exist.');
      return ok(
        JSON.stringify([
          {
            ifname: 'kube-ipvs0',
            flags: this.up ? ['BROADCAST', 'NOARP', 'UP', 'LOWER_UP'] : ['BROADCAST', 'NOARP'],
            addr_info: [...this.addresses].map((local) => ({ local, scope: 'global' })),
          },
        ]),
      );
    }
    if (line === 'ip -batch -') return this.#batch(stdin);
    if (args[0] === 'sysctl' && args[1] === '-n' && args.length === 3) {
      const value = this.sysctls.get(args[2]!);
      return value === undefined
        ? fail(`sysctl: cannot stat /proc/sys/${args[2]!.replaceAll('.', '/')}`)
        : ok(`${value}\n`);
    }
    if (args[0] === 'sysctl' && args[1] === '-q' && args[2] === '-w' && args.length === 4) {
      const [key = '', value = ''] = args[3]!.split('=');
      if (!this.sysctls.has(key)) return fail(`sysctl: cannot stat /proc/sys/${key.replaceAll('.', '/')}`);
      if (this.readOnly.has(key)) return fail(`sysctl: permission denied on key "${key}"`);
      this.sysctls.set(key, value);
      return ok();
    }
    return fail(`FakeHostExecer: unexpected command ${line}`);
  }

  #batch(stdin: string): ExecResult {
    for (const command of stdin.split('\n').filter(Boolean)) {
      const match = /^addr (add|del) (\S+)\/\d+ dev kube-ipvs0/.exec(command);
      if (match === null || !this.link) return { exitCode: 1, stdout: '', stderr: `Command failed -:1 (${command})` };
      const [, verb, ip = ''] = match;
      if (verb === 'add' ? this.addresses.has(ip) : !this.addresses.has(ip)) {
        return {
          exitCode: 1,
          stdout: '',
          stderr:
            verb === 'add' ? 'RTNETLINK answers: File exists' : 'RTNETLINK answers: Cannot assign requested address',
        };
      }
      if (verb === 'add') this.addresses.add(ip);
      else this.addresses.delete(ip);
    }
    return { exitCode: 0, stdout: '', stderr: '' };
  }
}
