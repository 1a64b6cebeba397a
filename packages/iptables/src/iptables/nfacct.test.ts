import { describe, expect, it } from 'vitest';
import { FakeIptables } from './fake/fake-iptables.js';
import { NfacctReader, NfacctTool, parseNfacct, type NfacctCounter } from './nfacct.js';

describe('nfacct', () => {
  it("parses nfacct 1.0's plain lines and skips anything else", () => {
    const text = [
      '{ pkts = 00000000000000000012, bytes = 00000000000000000720 } = ct_state_invalid_dropped_pkts;',
      'nfacct v1.0.2: error: something',
      '{ pkts = 00000000000000000000, bytes = 00000000000000000000 } = localhost_nps_accepted_pkts;',
      '',
    ].join('\n');
    expect(parseNfacct(text)).toEqual([
      { name: 'ct_state_invalid_dropped_pkts', packets: 12, bytes: 720 },
      { name: 'localhost_nps_accepted_pkts', packets: 0, bytes: 0 },
    ]);
  });

  it('ensure creates a missing object once, in the namespace, and keeps an existing one', async () => {
    const fake = new FakeIptables();
    const tool = new NfacctTool({ execer: fake, netns: 'lab-a' });
    await tool.ensure('localhost_nps_accepted_pkts');
    fake.nfacct.set('localhost_nps_accepted_pkts', 7);
    await tool.ensure('localhost_nps_accepted_pkts');
    expect(await tool.get('localhost_nps_accepted_pkts')).toEqual({
      name: 'localhost_nps_accepted_pkts',
      packets: 7,
      bytes: 420,
    });
    expect(fake.commands.filter((c) => c.startsWith('nfacct add'))).toEqual(['nfacct add localhost_nps_accepted_pkts']);
    expect(await tool.get('nope')).toBeUndefined();
  });

  it('ensure rejects when the tool cannot create the object, and refuses a name nfacct could not hold', async () => {
    const missing = new NfacctTool({
      execer: { run: async () => ({ exitCode: 127, stdout: '', stderr: 'nfacct: not found' }) },
    });
    await expect(missing.ensure('ct_state_invalid_dropped_pkts')).rejects.toThrow(/nfacct: not found/);
    const tool = new NfacctTool({ execer: new FakeIptables() });
    await expect(tool.get('a'.repeat(32))).rejects.toThrow(/bad nfacct object name/);
    await expect(tool.get('x; rm')).rejects.toThrow(/bad nfacct object name/);
  });

  it('the reader serves a burst of scrapes with one list, then reads again; a failed list reads as unknown', async () => {
    let lists = 0;
    let counters: NfacctCounter[] | Error = [{ name: 'a', packets: 3, bytes: 0 }];
    let now = 0;
    const reader = new NfacctReader(
      {
        list: async () => {
          lists += 1;
          if (counters instanceof Error) throw counters;
          return counters;
        },
      },
      { reuseMs: 1_000, now: () => now },
    );
    expect(await Promise.all([reader.packets('a'), reader.packets('a'), reader.packets('b')])).toEqual([
      3,
      3,
      undefined,
    ]);
    expect(lists).toBe(1);
    now = 2_000;
    counters = [{ name: 'a', packets: 5, bytes: 0 }];
    expect(await reader.packets('a')).toBe(5);
    now = 4_000;
    counters = new Error('gone');
    expect(await reader.packets('a')).toBeUndefined();
    expect(lists).toBe(3);
  });
});
