import type { IpvsKernel } from './seam.js';
import { type RealServer, realServerKey, type VirtualServer, virtualServerKey } from './types.js';

/**
 * Conformance cases for the kernel seam, run on `FakeIpvs` in unit tests and on `NetlinkIpvs` in
 * the lab's VM (a real 6.1 kernel): the fake is faithful exactly as far as these cases reach. Each
 * case starts from an empty table and returns what it observed: each step's outcome (`ok` or the
 * errno name) and the table at the end.
 */
export interface IpvsCase {
  readonly name: string;
  readonly steps: readonly Step[];
  readonly expected: readonly string[];
}

type Step = readonly [label: string, (k: IpvsKernel) => unknown];

export const VS4: VirtualServer = {
  family: 'IPv4',
  protocol: 'TCP',
  address: '198.19.0.10',
  port: 80,
  scheduler: 'rr',
  persistentSeconds: 0,
};
export const VS6: VirtualServer = {
  family: 'IPv6',
  protocol: 'UDP',
  address: '2001:db8:5e::a',
  port: 53,
  scheduler: 'rr',
  persistentSeconds: 0,
};
const RS_A: RealServer = { address: '198.18.1.2', port: 8080, weight: 1 };
const RS_B: RealServer = { address: '198.18.1.3', port: 8080, weight: 1 };
const RS6: RealServer = { address: '2001:db8:1::2', port: 5353, weight: 1 };

const table = (k: IpvsKernel): string[] =>
  k
    .listVirtualServers()
    .map((vs) => {
      const reals = k
        .listRealServers(vs)
        .map((rs) => `${realServerKey(rs)} w${rs.weight}`)
        .sort();
      return `${virtualServerKey(vs)} ${vs.scheduler}${vs.persistentSeconds > 0 ? ` persistent ${vs.persistentSeconds}` : ''} [${reals.join(', ')}]`;
    })
    .sort();

export const IPVS_CASES: readonly IpvsCase[] = [
  {
    name: 'adds a virtual server with real servers, v4 and v6',
    steps: [
      ['add vs4', (k) => k.addVirtualServer(VS4)],
      ['add rs a', (k) => k.addRealServer(VS4, RS_A)],
      ['add rs b', (k) => k.addRealServer(VS4, RS_B)],
      ['add vs6', (k) => k.addVirtualServer(VS6)],
      ['add rs6', (k) => k.addRealServer(VS6, RS6)],
    ],
    expected: [
      'ok',
      'ok',
      'ok',
      'ok',
      'ok',
      'TCP/198.19.0.10/80 rr [198.18.1.2:8080 w1, 198.18.1.3:8080 w1]',
      'UDP/[2001:db8:5e::a]/53 rr [[2001:db8:1::2]:5353 w1]',
    ],
  },
  {
    name: 'SCTP virtual servers (protocol 132), v4 and v6, are apart from TCP ones on the same address and port',
    steps: [
      ['add sctp4', (k) => k.addVirtualServer({ ...VS4, protocol: 'SCTP' })],
      ['add rs a', (k) => k.addRealServer({ ...VS4, protocol: 'SCTP' }, RS_A)],
      ['add tcp4', (k) => k.addVirtualServer(VS4)],
      ['add sctp6', (k) => k.addVirtualServer({ ...VS6, protocol: 'SCTP' })],
      ['add sctp6 again', (k) => k.addVirtualServer({ ...VS6, protocol: 'SCTP' })],
    ],
    expected: [
      'ok',
      'ok',
      'ok',
      'ok',
      'EEXIST',
      'SCTP/198.19.0.10/80 rr [198.18.1.2:8080 w1]',
      'SCTP/[2001:db8:5e::a]/53 rr []',
      'TCP/198.19.0.10/80 rr []',
    ],
  },
  {
    name: 'a duplicate virtual server is EEXIST',
    steps: [
      ['add', (k) => k.addVirtualServer(VS4)],
      ['add again', (k) => k.addVirtualServer({ ...VS4, scheduler: 'lc' })],
    ],
    expected: ['ok', 'EEXIST', 'TCP/198.19.0.10/80 rr []'],
  },
  {
    name: 'a missing virtual server is ESRCH for update, delete and real-server commands; lists no real servers',
    steps: [
      ['update', (k) => k.updateVirtualServer(VS4)],
      ['delete', (k) => k.deleteVirtualServer(VS4)],
      ['add rs', (k) => k.addRealServer(VS4, RS_A)],
      ['delete rs', (k) => k.deleteRealServer(VS4, RS_A)],
      ['list rs', (k) => k.listRealServers(VS4).length],
    ],
    expected: ['ESRCH', 'ESRCH', 'ESRCH', 'ESRCH', 'ok'],
  },
  {
    name: 'an unknown scheduler is ENOENT, for add and update',
    steps: [
      ['add', (k) => k.addVirtualServer({ ...VS4, scheduler: 'nope' })],
      ['add rr', (k) => k.addVirtualServer(VS4)],
      ['update', (k) => k.updateVirtualServer({ ...VS4, scheduler: 'nope' })],
    ],
    expected: ['ENOENT', 'ok', 'ENOENT', 'TCP/198.19.0.10/80 rr []'],
  },
  {
    name: 'real servers: duplicate is EEXIST, missing is ENOENT for update and delete',
    steps: [
      ['add vs', (k) => k.addVirtualServer(VS4)],
      ['add rs', (k) => k.addRealServer(VS4, RS_A)],
      ['add rs again', (k) => k.addRealServer(VS4, { ...RS_A, weight: 3 })],
      ['update missing', (k) => k.updateRealServer(VS4, RS_B)],
      ['delete missing', (k) => k.deleteRealServer(VS4, RS_B)],
    ],
    expected: ['ok', 'ok', 'EEXIST', 'ENOENT', 'ENOENT', 'TCP/198.19.0.10/80 rr [198.18.1.2:8080 w1]'],
  },
  {
    name: 'update changes scheduler, persistence and weight in place; delete removes',
    steps: [
      ['add vs', (k) => k.addVirtualServer(VS4)],
      ['add rs a', (k) => k.addRealServer(VS4, RS_A)],
      ['add rs b', (k) => k.addRealServer(VS4, RS_B)],
      ['persist', (k) => k.updateVirtualServer({ ...VS4, scheduler: 'sh', persistentSeconds: 10800 })],
      ['quiesce a', (k) => k.updateRealServer(VS4, { ...RS_A, weight: 0 })],
      ['delete b', (k) => k.deleteRealServer(VS4, RS_B)],
    ],
    expected: ['ok', 'ok', 'ok', 'ok', 'ok', 'ok', 'TCP/198.19.0.10/80 sh persistent 10800 [198.18.1.2:8080 w0]'],
  },
  {
    name: 'deleting a virtual server removes its real servers; flush empties the table',
    steps: [
      ['add vs4', (k) => k.addVirtualServer(VS4)],
      ['add rs', (k) => k.addRealServer(VS4, RS_A)],
      ['add vs6', (k) => k.addVirtualServer(VS6)],
      ['delete vs4', (k) => k.deleteVirtualServer(VS4)],
      ['re-add vs4', (k) => k.addVirtualServer(VS4)],
      ['list rs', (k) => k.listRealServers(VS4).length],
      ['flush', (k) => k.flush()],
    ],
    expected: ['ok', 'ok', 'ok', 'ok', 'ok', 'ok', 'ok'],
  },
];

/** Runs one case on a kernel seam whose table is empty; returns what `expected` describes. */
export function runIpvsCase(kernel: IpvsKernel, c: IpvsCase): string[] {
  const outcomes = c.steps.map(([, step]) => {
    try {
      step(kernel);
      return 'ok';
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      if (typeof code !== 'string') throw error;
      return code;
    }
  });
  return [...outcomes, ...table(kernel)];
}
