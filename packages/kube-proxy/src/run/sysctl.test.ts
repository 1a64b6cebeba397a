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
  it('writes what differs, skips what is already right, and warns about what the kernel refuses', async () => {
    const fake = new FakeSysctls(
      new Map([
        [MAX, 65_536],
        [EST, 432_000],
        [CW, 3_600],
      ]),
      new Set([MAX]),
    );
    const log = new RecordingLogger();
    const result = await applySysctls(
      [
        { name: MAX, value: 131_072 },
        { name: EST, value: 86_400 },
        { name: CW, value: 3_600 },
        { name: 'net/netfilter/nf_conntrack_udp_timeout', value: 30 },
      ],
      fake,
      log,
    );
    expect(fake.writes).toEqual([`${EST}=86400`]);
    expect(result).toEqual({ written: [EST], skipped: [MAX, 'net/netfilter/nf_conntrack_udp_timeout'] });
    expect(log.at('warn').map((r) => r.msg)).toEqual([
      'cannot set sysctl; leaving it as it is',
      'cannot set sysctl; leaving it as it is',
    ]);
  });
});
