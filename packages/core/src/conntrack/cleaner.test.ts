import { describe, expect, it } from 'vitest';
import { nodeState } from '../nodeview/state-fixtures.js';
import { AnsweringExecer } from '@kpng/kit/testing';
import { capturingLogger } from '../../test/support/source-sink.js';
import type { ServiceKey } from '../model/types.js';
import { cleanStaleFlows, ConntrackTool, MAX_FILTERED_LISTINGS, type ConntrackCleanupRequest } from './cleaner.js';
import { parseFlow } from './entries.js';

/** Answers by argv prefix, records every call. */
const scripted = (answers: ConstructorParameters<typeof AnsweringExecer>[0]): AnsweringExecer =>
  new AnsweringExecer(answers);

const LISTING = [
  // to the ClusterIP, answered by a serving endpoint: kept
  'udp      17 29 src=198.18.1.5 dst=198.19.0.2 sport=40000 dport=53 src=198.18.1.7 dst=198.18.1.5 sport=5353 dport=40000 mark=0 use=1',
  // to the ClusterIP, answered by a deleted endpoint: stale
  'udp      17 29 src=198.18.1.5 dst=198.19.0.2 sport=40001 dport=53 src=198.18.1.9 dst=198.18.1.5 sport=5353 dport=40001 mark=0 use=1',
  // to the ClusterIP while it had no endpoints (never DNATed): stale
  'udp      17 29 src=198.18.1.6 dst=198.19.0.2 sport=40002 dport=53 [UNREPLIED] src=198.19.0.2 dst=198.18.1.6 sport=53 dport=40002 mark=0 use=1',
  // to the NodePort on the node address, deleted endpoint: stale
  'udp      17 29 src=203.0.113.1 dst=198.18.255.1 sport=40003 dport=30053 src=198.18.1.9 dst=198.18.1.254 sport=5353 dport=40003 mark=0 use=1',
  // same port, but to a pod (not a NodePort address): kept
  'udp      17 29 src=203.0.113.1 dst=198.18.1.30 sport=40004 dport=30053 src=198.18.1.30 dst=203.0.113.1 sport=30053 dport=40004 mark=0 use=1',
  // unrelated service port: kept
  'udp      17 29 src=198.18.1.5 dst=198.19.0.99 sport=40005 dport=53 src=198.18.1.77 dst=198.18.1.5 sport=53 dport=40005 mark=0 use=1',
].join('\n');

/** What the kernel answers a `conntrack -L` with `--orig-dst` / `--orig-port-dst` filters: the matching flows of LISTING. */
function filtered(line: string): string {
  const option = (name: string) => {
    const at = line.split(' ').indexOf(name);
    return at < 0 ? undefined : line.split(' ')[at + 1];
  };
  const dst = option('--orig-dst');
  const dport = option('--orig-port-dst');
  return LISTING.split('\n')
    .filter((flow) => {
      const parsed = parseFlow(flow)!;
      return (
        (dst === undefined || parsed.origDst === dst) && (dport === undefined || String(parsed.origDport) === dport)
      );
    })
    .join('\n');
}

describe('ConntrackTool', () => {
  const state = nodeState([
    {
      name: 'dns',
      clusterIPs: ['198.19.0.2'],
      ports: [{ protocol: 'UDP', port: 53, targetPort: 5353, nodePort: 30053 }],
      endpoints: [{ ip: '198.18.1.7' }],
    },
    { name: 'tcp-only', clusterIPs: ['198.19.0.3'], endpoints: [{ ip: '198.18.1.8' }] },
  ]);

  it('deletes exactly the flows whose reply does not come from a serving endpoint', async () => {
    const execer = scripted({
      'ip netns exec lab conntrack -L': (line) => ({ exitCode: 0, stdout: filtered(line), stderr: '' }),
      'ip netns exec lab conntrack -D': {
        exitCode: 0,
        stdout: '',
        stderr: 'conntrack v1.4.7 (conntrack-tools): 1 flow entries have been deleted.',
      },
    });
    const deleted = await new ConntrackTool({ execer, netns: 'lab' }).clean({
      family: 'IPv4',
      services: state.services,
      isNodePortAddress: (ip) => ip === '198.18.255.1',
    });
    expect(deleted).toBe(3);
    // Filtered by destination in the query: the service address and port, and the NodePort.
    expect(execer.calls.slice(0, 2)).toEqual([
      'ip netns exec lab conntrack -L -p udp -f ipv4 --orig-dst 198.19.0.2 --orig-port-dst 53',
      'ip netns exec lab conntrack -L -p udp -f ipv4 --orig-port-dst 30053',
    ]);
    expect(execer.calls.slice(2)).toEqual([
      'ip netns exec lab conntrack -D -p udp -f ipv4 --orig-dst 198.19.0.2 --orig-port-dst 53 --reply-src 198.18.1.9 --reply-port-src 5353',
      'ip netns exec lab conntrack -D -p udp -f ipv4 --orig-dst 198.19.0.2 --orig-port-dst 53 --reply-src 198.19.0.2 --reply-port-src 53',
      'ip netns exec lab conntrack -D -p udp -f ipv4 --orig-dst 198.18.255.1 --orig-port-dst 30053 --reply-src 198.18.1.9 --reply-port-src 5353',
    ]);
  });

  it(`lists every UDP flow once when there are more than ${MAX_FILTERED_LISTINGS} destinations (a full sync)`, async () => {
    const many = nodeState(
      Array.from({ length: MAX_FILTERED_LISTINGS + 1 }, (_, i) => ({
        name: `dns-${i}`,
        clusterIPs: [`198.19.1.${i + 1}`],
        ports: [{ protocol: 'UDP' as const, port: 53, targetPort: 5353 }],
        endpoints: [{ ip: `198.18.2.${i + 1}` }],
      })),
    );
    const execer = scripted({ 'conntrack -L': { exitCode: 0, stdout: '', stderr: '' } });
    await new ConntrackTool({ execer }).clean({
      family: 'IPv4',
      services: many.services,
      isNodePortAddress: () => false,
    });
    expect(execer.calls).toEqual(['conntrack -L -p udp -f ipv4']);
  });

  it('lists nothing when no UDP service port has serving endpoints', async () => {
    const execer = scripted({});
    const tcpOnly = state.services.filter((s) => s.name === 'tcp-only');
    expect(
      await new ConntrackTool({ execer }).clean({ family: 'IPv4', services: tcpOnly, isNodePortAddress: () => true }),
    ).toBe(0);
    expect(execer.calls).toEqual([]);
  });

  it('fails loudly when listing fails', async () => {
    const execer = scripted({ 'conntrack -L': { exitCode: 1, stdout: '', stderr: 'Operation not permitted' } });
    await expect(
      new ConntrackTool({ execer }).clean({ family: 'IPv4', services: state.services, isNodePortAddress: () => false }),
    ).rejects.toThrow(/^conntrack -L -p udp -f ipv4 .*exited with 1: Operation not permitted$/);
  });

  it('parses IPv6 flows and ignores summary lines', () => {
    expect(parseFlow('conntrack v1.4.7 (conntrack-tools): 1 flow entries have been shown.')).toBeUndefined();
    expect(
      parseFlow(
        'udp      17 29 src=2001:db8:1::5 dst=2001:db8:19::2 sport=1 dport=53 src=2001:db8:1::7 dst=2001:db8:1::5 sport=5353 dport=1 mark=0 use=1',
      ),
    ).toEqual({
      proto: 'udp',
      origSrc: '2001:db8:1::5',
      origDst: '2001:db8:19::2',
      origDport: 53,
      replySrc: '2001:db8:1::7',
      replySport: 5353,
    });
  });
});

describe('cleanStaleFlows', () => {
  const state = nodeState([
    { name: 'dns', clusterIPs: ['198.19.0.2'], ports: [{ protocol: 'UDP', port: 53, targetPort: 5353 }] },
    { name: 'tcp-only', clusterIPs: ['198.19.0.3'] },
  ]);
  const keyOf = (name: string): ServiceKey => state.services.find((s) => s.name === name)!.key;
  const recording = (fail: string | undefined) => {
    const requests: ConntrackCleanupRequest[] = [];
    return {
      requests,
      clean: async (request: ConntrackCleanupRequest) => {
        requests.push(request);
        if (request.family === fail) throw new Error('conntrack: Operation not permitted');
        return 2;
      },
    };
  };
  const families = (['IPv4', 'IPv6'] as const).map((family) => ({
    family,
    nodePortAddresses: () => (ip: string) => ip === (family === 'IPv4' ? '198.18.255.1' : '2001:db8::1'),
  }));

  it('cleans the changed Services family by family; a failure is logged and the next family still cleaned', async () => {
    const cleaner = recording('IPv4');
    const cleaned: [string, number][] = [];
    const log = capturingLogger();
    await cleanStaleFlows(cleaner, {
      services: state.services,
      updated: new Set([keyOf('dns')]),
      families,
      cleaned: (family, deleted) => cleaned.push([family, deleted]),
      log,
    });
    expect(cleaner.requests.map((r) => [r.family, [...r.services].map((s) => s.name)])).toEqual([
      ['IPv4', ['dns']],
      ['IPv6', ['dns']],
    ]);
    expect(cleaner.requests[1]!.isNodePortAddress('2001:db8::1')).toBe(true);
    expect(cleaned).toEqual([['IPv6', 2]]);
    expect(log.lines).toEqual([
      {
        level: 'warn',
        msg: 'stale conntrack cleanup failed',
        fields: { family: 'IPv4', error: 'conntrack: Operation not permitted' },
      },
    ]);
  });

  it('asks nothing when no changed Service has a UDP port, and every Service when none is named', async () => {
    const tcpOnly = recording(undefined);
    const common = { services: state.services, families, cleaned: () => undefined, log: capturingLogger() };
    await cleanStaleFlows(tcpOnly, { ...common, updated: new Set([keyOf('tcp-only')]) });
    expect(tcpOnly.requests).toEqual([]);
    const full = recording(undefined);
    await cleanStaleFlows(full, { ...common, updated: undefined });
    expect(full.requests.map((r) => [...r.services].map((s) => s.name))).toEqual([
      ['dns', 'tcp-only'],
      ['dns', 'tcp-only'],
    ]);
  });
});
