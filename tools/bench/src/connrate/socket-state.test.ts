import { describe, expect, it } from 'vitest';
import { conntrackStat, parseSocketState, socketStateDelta } from './socket-state.js';

const SOCKSTAT = `sockets: used 15
TCP: inuse 1 orphan 0 tw 15234 alloc 1 mem 312
UDP: inuse 0 mem 0
`;
const netstat = (retrans: number, pawsEstab: number, pawsTimewait?: number): string => {
  const names = ['SyncookiesSent', 'TW', 'PAWSEstab', ...(pawsTimewait === undefined ? [] : ['PAWSTimewait'])];
  const values = [0, 149799, pawsEstab, ...(pawsTimewait === undefined ? [] : [pawsTimewait])];
  return [
    `TcpExt: ${names.join(' ')} TCPSynRetrans`,
    `TcpExt: ${values.join(' ')} ${retrans}`,
    'IpExt: InNoRoutes InTruncatedPkts',
    'IpExt: 0 0',
    '',
  ].join('\n');
};

describe('parseSocketState', () => {
  it('reads TIME_WAIT, SYN retransmits and PAWS refusals (both counters)', () =>
    expect(parseSocketState(SOCKSTAT + netstat(12, 2, 40))).toEqual({
      timeWait: 15234,
      synRetransmits: 12,
      pawsRejected: 42,
    }));

  it('takes a counter an older kernel lacks as 0', () =>
    expect(parseSocketState(SOCKSTAT + netstat(3, 5)).pawsRejected).toBe(5));

  it.each([
    ['no sockstat', netstat(1, 1)],
    ['no netstat', SOCKSTAT],
    ['names and values differ', `${SOCKSTAT}TcpExt: A B\nTcpExt: 1\n`],
    ['a value that is no count', `${SOCKSTAT}TcpExt: TCPSynRetrans\nTcpExt: x\n`],
  ])('refuses text with %s', (_name, text) => expect(() => parseSocketState(text)).toThrow());
});

describe('socketStateDelta', () => {
  it('subtracts the counters and keeps the later TIME_WAIT level', () =>
    expect(
      socketStateDelta(
        { timeWait: 100, synRetransmits: 10, pawsRejected: 4 },
        { timeWait: 30, synRetransmits: 25, pawsRejected: 4 },
      ),
    ).toEqual({ timeWait: 30, synRetransmits: 15, pawsRejected: 0 }));
});

describe('conntrackStat', () => {
  const stats = [
    'cpu=0   \tfound=0 invalid=3 insert=0 insert_failed=7 drop=7 early_drop=0 error=0 clash_resolve=0 ',
    'cpu=1   \tfound=1 invalid=0 insert=0 insert_failed=5 drop=5 early_drop=0 error=0 clash_resolve=0 ',
    '',
  ].join('\n');

  it('sums a field over the CPUs', () => {
    expect(conntrackStat(stats, 'insert_failed')).toBe(12);
    expect(conntrackStat(stats, 'invalid')).toBe(3);
  });

  it('refuses a missing field, text without CPU lines and a field that is no name', () => {
    expect(() => conntrackStat(stats, 'nothing')).toThrow(/has no nothing/);
    expect(() => conntrackStat('conntrack v1.4.7\n', 'drop')).toThrow(/no "cpu=N/);
    expect(() => conntrackStat(stats, 'drop|x')).toThrow(/not a conntrack statistic/);
  });
});
