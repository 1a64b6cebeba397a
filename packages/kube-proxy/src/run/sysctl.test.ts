import { RecordingLogger } from '@kpng/core/testing';
import { ScriptedExecer } from '@kpng/kit/testing';
import { describe, expect, it } from 'vitest';
import { applySysctls, sysctlAccess, type SysctlAccess } from './sysctl.js';

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

describe('sysctlAccess in a network namespace', () => {
  it('reads and writes /proc/sys from inside the namespace through the exec seam; a refusal names the file', async () => {
    const inside = (script: string, ...args: string[]) => [
      'ip',
      'netns',
      'exec',
      'lab-node',
      'sh',
      '-c',
      script,
      'sh',
      ...args,
    ];
    const refusal = 'sh: 1: cannot create /proc/sys/net/netfilter/nf_conntrack_max: Read-only file system';
    const execer = new ScriptedExecer([
      { argv: inside('cat "$1"', `/proc/sys/${MAX}`), result: { stdout: '65536\n' } },
      { argv: inside('printf %s "$2" > "$1"', `/proc/sys/${MAX}`, '131072') },
      { argv: inside('printf %s "$2" > "$1"', `/proc/sys/${MAX}`, '262144'), result: { exitCode: 2, stderr: refusal } },
    ]);
    const access = sysctlAccess('lab-node', execer);
    expect(await access.read(MAX)).toBe(65_536);
    await access.write(MAX, 131_072);
    await expect(access.write(MAX, 262_144)).rejects.toThrow(
      /exited with 2: .*nf_conntrack_max: Read-only file system/,
    );
    expect(execer.remaining).toBe(0);
  });
});
