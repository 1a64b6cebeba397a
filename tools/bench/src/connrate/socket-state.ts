/**
 * What one connection-rate sample leaves in the lab's namespaces, read from their own `/proc/net`
 * (per network namespace): TIME_WAIT sockets (`sockstat`), SYNs retransmitted (each one a
 * connection delayed: the client's `TcpExt: TCPSynRetrans`), and SYNs a TIME_WAIT socket
 * refused for an old timestamp (the server's `PAWSTimewait` / `PAWSEstab`). These tell a sample
 * that measured the path of new connections from one that measured what earlier samples left.
 */

/** The counters of one namespace's `/proc/net/sockstat`, `/proc/net/netstat` and `/proc/net/snmp`. */
export interface SocketState {
  /** TCP sockets in TIME_WAIT (`sockstat`: `TCP: ... tw N`). */
  readonly timeWait: number;
  /** `TcpExt: TCPSynRetrans`: SYNs sent again (no answer within the retransmission timeout). */
  readonly synRetransmits: number;
  /**
   * `TcpExt: PAWSTimewait` + `PAWSEstab`: segments refused for an old timestamp. A SYN reusing a
   * TIME_WAIT socket's 4-tuple with an older timestamp is one (counted in PAWSTimewait since Linux
   * 6.x, in PAWSEstab before): the server answers it with an ACK, the client resets, and its SYN
   * goes again (a client SYN retransmit).
   */
  readonly pawsRejected: number;
}

/** The files `readSocketState` parses, in this order (one `cat` inside the namespace). */
export const SOCKET_STATE_FILES = ['/proc/net/sockstat', '/proc/net/netstat'] as const;

/**
 * Parses the text of `SOCKET_STATE_FILES` concatenated. `netstat`'s sections come in pairs of
 * lines, names then values (`TcpExt: A B` / `TcpExt: 1 2`). A missing counter reads as 0 (an older
 * kernel without it); text that is not this shape throws.
 */
export function parseSocketState(text: string): SocketState {
  const lines = text.split('\n');
  const tcp = lines.find((line) => line.startsWith('TCP: '));
  const tw = tcp === undefined ? undefined : /\btw (\d+)\b/.exec(tcp)?.[1];
  if (tw === undefined) throw new Error('no "TCP: ... tw N" line (sockstat)');
  const ext = new Map<string, number>();
  const sections = lines.filter((line) => line.startsWith('TcpExt: '));
  if (sections.length !== 2) throw new Error(`expected two TcpExt lines (netstat), found ${sections.length}`);
  const names = sections[0]!.trim().split(/\s+/).slice(1);
  const values = sections[1]!.trim().split(/\s+/).slice(1);
  if (names.length !== values.length) throw new Error('TcpExt names and values differ in count');
  names.forEach((name, i) => ext.set(name, Number(values[i])));
  const counter = (name: string): number => {
    const value = ext.get(name) ?? 0;
    if (!Number.isSafeInteger(value) || value < 0) throw new Error(`TcpExt ${name} is not a count`);
    return value;
  };
  return {
    timeWait: Number(tw),
    synRetransmits: counter('TCPSynRetrans'),
    pawsRejected: counter('PAWSTimewait') + counter('PAWSEstab'),
  };
}

/** Counters grown between two readings; TIME_WAIT is the later reading's (a level, not a counter). */
export function socketStateDelta(before: SocketState, after: SocketState): SocketState {
  return {
    timeWait: after.timeWait,
    synRetransmits: after.synRetransmits - before.synRetransmits,
    pawsRejected: after.pawsRejected - before.pawsRejected,
  };
}

/**
 * The sum over CPUs of one field of `conntrack -S` (`cpu=0 found=0 ... insert_failed=2 drop=2 ...`).
 * `insert_failed`: new entries whose tuple clashed with one still in the table (the packet, a SYN
 * here, is dropped: a TCP clash is never resolved).
 */
export function conntrackStat(text: string, field: string): number {
  if (!/^[a-z_]+$/.test(field)) throw new Error(`not a conntrack statistic: ${field}`);
  const pattern = new RegExp(`\\b${field}=(\\d+)\\b`);
  const lines = text.split('\n').filter((line) => line.startsWith('cpu='));
  if (lines.length === 0) throw new Error('no "cpu=N ..." line (conntrack -S)');
  return lines.reduce((sum, line) => {
    const value = pattern.exec(line)?.[1];
    if (value === undefined) throw new Error(`conntrack -S has no ${field}`);
    return sum + Number(value);
  }, 0);
}
