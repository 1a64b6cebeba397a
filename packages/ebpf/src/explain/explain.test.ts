import { fixtureModel, fullSyncRequest, nodeState, OTHER_NODE, type ServiceFixture } from '@kpng/core/testing';
import { formatExplain, runExplain } from '@kpng/core/runtime';
import type { ServiceModel } from '@kpng/core';
import { AnsweringExecer } from '@kpng/kit/testing';
import { describe, expect, it } from 'vitest';
import { FakeKernel } from '../../test/support/fake-kernel.js';
import { EbpfBackend } from '../backend/ebpf-backend.js';
import { backend as module } from '../cli/backend-module.js';
import { decodeLb, endpointValue, serviceKey } from '../maps/layout.js';
import { lbReport, MAX_ENDPOINT_LINES, type ReadMap } from './explain.js';

const web: ServiceFixture = {
  name: 'web',
  clusterIPs: ['198.19.0.10', '2001:db8:5e::10'],
  externalIPs: ['203.0.113.10'],
  affinity: 10800,
  ports: [
    { name: 'http', port: 80 },
    { name: 'sctp', port: 90, protocol: 'SCTP' },
  ],
  endpoints: [{ ip: '198.18.1.10' }, { ip: '198.18.1.11' }, { ip: '2001:db8:1::10' }],
};
const empty: ServiceFixture = { name: 'empty', clusterIPs: ['198.19.0.11'], endpoints: [] };
const remoteOnly: ServiceFixture = {
  name: 'remote',
  clusterIPs: ['198.19.0.12'],
  internalLocal: true,
  endpoints: [{ ip: '198.18.2.10', node: OTHER_NODE }],
};

function modelOf(fixture: ServiceFixture): ServiceModel {
  const reader = fixtureModel([fixture]);
  const [key] = [...reader.serviceKeys()];
  return reader.service(key!)!;
}

/** A scan-only map of (key, value) hex pairs, as revnat and affinity are read. */
function scanned(entries: readonly (readonly [Buffer, Buffer])[]): ReadMap {
  return {
    get: () => undefined,
    scan: async () => ({
      entries: entries.map(([k, v]) => [k.toString('hex'), v.toString('hex')] as const),
      next: undefined,
    }),
  };
}

/** A revnat key: (socket cookie, endpoint); its value: the Service address asked for. */
const revnat = (cookie: number, endpoint: Buffer, service: Buffer): [Buffer, Buffer] => {
  const key = Buffer.alloc(32);
  key.writeBigUInt64LE(BigInt(cookie), 0);
  endpoint.copy(key, 8);
  return [key, service];
};
const affinity = (netns: number, lb: number): [Buffer, Buffer] => {
  const key = Buffer.alloc(16);
  key.writeBigUInt64LE(BigInt(netns), 0);
  key.writeUInt32LE(lb, 8);
  return [key, Buffer.alloc(40)];
};

async function synced(services: readonly ServiceFixture[]): Promise<FakeKernel> {
  const kernel = new FakeKernel();
  const backend = new EbpfBackend({ cgroup: '/unused', kernel });
  await backend.setup();
  await backend.sync(fullSyncRequest(nodeState(services)));
  return kernel;
}

describe('lbReport (the maps a sync wrote, read back)', () => {
  it("a Service's addresses and ports, their lbs, endpoints, sockets and affinity clients", async () => {
    const kernel = await synced([web, empty, remoteOnly]);
    const a = endpointValue('IPv4', '198.18.1.10', 8080);
    const cluster = endpointValue('IPv4', '198.19.0.10', 80);
    const clusterLb = decodeLb(kernel.maps.services4.get(serviceKey('IPv4', '198.19.0.10', 80, 'TCP'))!).id;
    const maps = {
      ...kernel.maps,
      revnat: scanned([
        revnat(1, a, cluster),
        revnat(2, a, cluster),
        revnat(3, a, endpointValue('IPv4', '9.9.9.9', 1)),
      ]),
      affinity: scanned([affinity(7, clusterLb), affinity(8, clusterLb), affinity(9, 99)]),
    };
    const text = formatExplain({ namespace: 'default', name: 'web' }, [
      await lbReport('test maps', modelOf(web), maps),
    ]);
    const lbOf = (line: RegExp) => Number(line.exec(text)?.[1]);
    const v4 = lbOf(/ClusterIP 198\.19\.0\.10:80\/TCP -> lb (\d+): 2 endpoints, ClientIP affinity 10800 s/);
    const v6 = lbOf(/ClusterIP \[2001:db8:5e::10\]:80\/TCP -> lb (\d+): 1 endpoint, ClientIP affinity 10800 s/);
    const ext = lbOf(/external IP 203\.0\.113\.10:80\/TCP -> lb (\d+): 2 endpoints/);
    expect(new Set([v4, v6, ext]).size).toBe(3);
    expect(text).toContain('ClusterIP 198.19.0.10:90/SCTP: not balanced at the socket');
    const section = (id: number) => text.split(`lb ${id} endpoints:\n`)[1]?.split(/\n(?! )/)[0];
    expect(section(v4)).toMatch(/#\d 198\.18\.1\.10:8080, 2 sockets balanced to it/);
    expect(section(v4)).toMatch(/#\d 198\.18\.1\.11:8080, 0 sockets balanced to it/);
    expect(section(v6)).toContain('#0 [2001:db8:1::10]:8080, 0 sockets balanced to it');
    expect(v4).toBe(clusterLb);
    // Both affinity entries of the ClusterIP's lb are counted under it; the foreign lb's is not.
    expect(section(v4)).toContain('2 clients held by ClientIP affinity');
    expect(text).toContain('  198.19.0.10:80: 2 sockets\n');
    expect(text).toContain('  203.0.113.10:80: 0 sockets\n');

    const refused = await lbReport('m', modelOf(empty), kernel.maps);
    expect(refused.sections[0]?.lines.map((l) => l.text)).toEqual([
      expect.stringMatching(/^ClusterIP 198\.19\.0\.11:80\/TCP -> lb \d+: REJECT \(no endpoints: .*ECONNREFUSED\)$/),
    ]);
    const unreachable = await lbReport('m', modelOf(remoteOnly), kernel.maps);
    expect(unreachable.sections[0]?.lines[0]?.text).toMatch(/UNREACHABLE \(no endpoint this node may use/);
  });

  it('says what is missing: a Service not in the maps, a map not found, an endpoint index missing', async () => {
    const kernel = await synced([empty]);
    const absent = await lbReport('m', modelOf(web), kernel.maps);
    expect(absent.sections).toHaveLength(1); // no lb, so no endpoint or socket section
    expect(absent.sections[0]?.lines.map((l) => l.text)).toContain('ClusterIP 198.19.0.10:80/TCP: not in the map');
    const noV6 = await lbReport('m', modelOf(web), { services4: kernel.maps.services4 });
    expect(noV6.sections[0]?.lines.map((l) => l.text)).toContain(
      'ClusterIP [2001:db8:5e::10]:80/TCP: services6 not found',
    );
    const full = await synced([web]);
    full.maps.endpoints.data.clear(); // drift: counts without their endpoints
    const text = formatExplain({ namespace: 'default', name: 'web' }, [await lbReport('m', modelOf(web), full.maps)]);
    expect(text).toContain('missing at 2 of the indexes read (the first #0): a sync in progress, or drift');
  });

  it('prints at most MAX_ENDPOINT_LINES endpoints per lb, whatever count the map claims', async () => {
    const kernel = await synced([web]);
    const key = [...kernel.maps.services4.data.keys()][0]!;
    kernel.maps.services4.data.get(key)!.writeUInt32LE(0xffffffff, 4); // count
    const report = await lbReport('m', modelOf(web), kernel.maps);
    const lines = report.sections.find((s) => s.lines.some((l) => l.text.startsWith('...')))!.lines;
    expect(lines.map((l) => l.text).slice(2)).toEqual([
      `missing at ${MAX_ENDPOINT_LINES - 2} of the indexes read (the first #2): a sync in progress, or drift`,
      `... ${0xffffffff - MAX_ENDPOINT_LINES} more`,
    ]);
  });
});

describe('kpng explain --backend ebpf', () => {
  const io = () => {
    const out: string[] = [];
    const err: string[] = [];
    return { out, err, stdout: (t: string) => void out.push(t), stderr: (t: string) => void err.push(t) };
  };

  it('needs --cgroup-root (2); a directory that is no cgroup is reported unreadable, the packet path read after it', async () => {
    const lookupService = async () => modelOf(web);
    const missing = io();
    expect(await runExplain('kpng', module, ['default/web'], { ...missing, lookupService })).toBe(2);
    expect(missing.err.join('')).toMatch(/--cgroup-root is required/);

    const execer = new AnsweringExecer({
      'nft -j list table': { exitCode: 1, stderr: 'Error: No such file or directory\n' },
    });
    const streams = io();
    const argv = ['default/web', '--cgroup-root', '/nonexistent/cg', '--packet-path', 'nft', '--ip-families', 'IPv4'];
    expect(await runExplain('kpng', module, argv, { ...streams, lookupService, execer })).toBe(0);
    const text = streams.out.join('');
    // (A host without a cgroup v2 mount says that instead.)
    expect(text).toMatch(
      /^# default\/web in BPF maps on cgroup \/nonexistent\/cg \(not readable: (cgroup \/nonexistent\/cg does not exist|no cgroup v2 hierarchy is mounted .*)\)\n/,
    );
    expect(text).toContain('# default/web in nftables table ip kpng (not readable: Error: No such file or directory)');
    expect(execer.calls).toEqual(['nft -j list table ip kpng']);
  });

  it('looks the Service up first: 1 when the API server cannot be read, nothing else read', async () => {
    const execer = new AnsweringExecer({});
    const streams = io();
    const lookupService = async (): Promise<ServiceModel> => {
      throw new Error('no Service default/web in the API server');
    };
    const argv = ['default/web', '--cgroup-root', '/sys/fs/cgroup', '--packet-path', 'nft'];
    expect(await runExplain('kpng', module, argv, { ...streams, lookupService, execer })).toBe(1);
    expect(streams.err.join('')).toContain('no Service default/web in the API server');
    expect(execer.calls).toEqual([]);
  });
});
