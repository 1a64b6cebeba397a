import { RecordingLogger } from '@kpng/core/testing';
import { describe, expect, it } from 'vitest';
import { applySysctls, type SysctlAccess } from './sysctl.js';

/** A fake /proc/sys (no kernel here: the kernel path is covered by the lab e2e test). */
class FakeSysctls implements SysctlAccess {
  readonly writes: string[] = [];
  constructor(
    readonly values: Map<string, number>,
    readonly readOnly: ReadonlySet<string> = new Set(),
  ) {}
  async read(name: string): Promise<number> {
    const v = this.values.get(name);
    if (v === undefined) throw new Error(`open /proc/sys/${name}: no such file or directory`);
    return v;
  }
  async write(name: string, value: number): Promise<void> {
    if (this.readOnly.has(name)) throw new Error(`write /proc/sys/${name}: permission denied`);
    this.values.set(name, value);
    this.writes.push(`${name}=${value}`);
  }
}

const MAX = 'net/netfilter/nf_conntrack_max';
const EST = 'net/netfilter/nf_conntrack_tcp_timeout_established';
const CW = 'net/netfilter/nf_conntrack_tcp_timeout_close_wait';

describe('applySysctls', () => {
  it('writes what differs, one at a time, skips what is already right, and reports each refusal by name, judged', async () => {
    const fake = new FakeSysctls(
      new Map([
        [MAX, 65_536],
        [EST, 432_000],
        [CW, 3_600],
      ]),
      new Set([MAX, EST]),
    );
    const log = new RecordingLogger();
    const result = await applySysctls(
      [
        { name: MAX, value: 131_072, fatal: true },
        { name: EST, value: 86_400 },
        { name: CW, value: 3_600, fatal: true },
        { name: 'net/netfilter/nf_conntrack_udp_timeout', value: 30 },
      ],
      fake,
      log,
    );
    // The udp timeout could not be read (no such file): written anyway, as upstream's SetSysctl would.
    expect(fake.writes).toEqual(['net/netfilter/nf_conntrack_udp_timeout=30']);
    expect(result.written).toEqual(['net/netfilter/nf_conntrack_udp_timeout']);
    expect(result.failed).toEqual([
      { name: MAX, value: 131_072, fatal: true, error: `write /proc/sys/${MAX}: permission denied` },
      { name: EST, value: 86_400, fatal: false, error: `write /proc/sys/${EST}: permission denied` },
    ]);
    expect(log.at('error').map((r) => r.msg)).toEqual(['cannot set sysctl']);
    expect(log.at('warn').map((r) => r.msg)).toEqual(['cannot set sysctl; leaving it as it is']);
  });
});
