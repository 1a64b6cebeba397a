// The HTTP doors of every program as a real child process (the compiled `dist` entry points, as
// shipped): kpng-nft, kpng-iptables and the compat kube-proxy (nftables mode; its iptables mode is
// the same binary and door), kpng-netpol, kpng-ebpf and a test client. Each program runs once,
// alone, in one lab namespace set (and, for kpng-ebpf, one cgroup) shared by the file; raw
// malformed requests go to each of its doors, and the same pid keeps answering /healthz and
// /metrics and counts what it refused. The doors: metrics and healthz of every program; the
// per-Service health-check node port of an `externalTrafficPolicy: Local` LoadBalancer Service for
// the three Service programs (a program given a namespace to program opens it on loopback); the
// test client's metrics server (pod-creation-reachability-latency; the three clients share it,
// @kpng/test-clients' startMetricsServer). kpng-ipvs (VM only) is not run here: its metrics, healthz
// and health-check node port servers are these same core servers (backendProgram's), which the
// kpng-* rows cover without a guest. `kpng` itself: core's src/cli/doors.e2e.test.ts (with slowloris
// and `ulimit -n`).
import { randomBytes } from 'node:crypto';
import { mkdirSync, rmdirSync } from 'node:fs';
import { join } from 'node:path';
import { readCgroupV2Mounts } from '@kpng/ebpf';
import {
  FakeApiServer,
  kernelE2e,
  kubeconfigFor,
  Lab,
  sweepLeftovers,
  webManifest,
  type LabKubeconfig,
} from '@kpng/lab';
import { endpointSlice, node, service } from '@kpng/lab/fault';
import { HOSTILE_RAW_REQUESTS, HOSTILE_RAW_STATUSES, rawExchange, rawGet } from '@kpng/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChildProgram, type DoorProgramName } from './fault/child-program.js';
import { freePort } from './free-port.js';

const e2e = await kernelE2e('doors of every program');
/** The programs that serve Services: they open the health-check node port. */
const SERVICE_PROGRAMS: readonly DoorProgramName[] = ['kpng-nft', 'kpng-iptables', 'kube-proxy nftables'];
const PROGRAMS: readonly DoorProgramName[] = [
  ...SERVICE_PROGRAMS,
  'kpng-netpol',
  'kpng-ebpf',
  'pod-creation-reachability-latency',
];

const portOf = (url: string) => Number(new URL(url).port);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** An `externalTrafficPolicy: Local` LoadBalancer Service (endpoint on the lab node) and its slice. */
function localLoadBalancer(healthCheckNodePort: number, slice: ReturnType<typeof endpointSlice>) {
  const web = service();
  return [
    {
      ...web,
      metadata: { name: 'lb-local', namespace: 'default' },
      spec: {
        ...web.spec,
        type: 'LoadBalancer',
        clusterIP: '198.19.0.11',
        clusterIPs: ['198.19.0.11'],
        ports: [{ ...web.spec.ports[0], nodePort: 30081 }],
        externalTrafficPolicy: 'Local',
        healthCheckNodePort,
      },
      status: { loadBalancer: { ingress: [{ ip: '203.0.113.11' }] } },
    },
    {
      ...slice,
      metadata: { name: 'lb-local-1', namespace: 'default', labels: { 'kubernetes.io/service-name': 'lb-local' } },
    },
  ];
}

interface Door {
  readonly name: string;
  readonly port: number;
}

describe.skipIf(!e2e.run)('the HTTP doors of every program, as real processes', () => {
  let lab: Lab;
  let server: FakeApiServer;
  let kubeconfig: LabKubeconfig;
  let healthCheckNodePort: number;
  let cgroupRoot: string | undefined;
  beforeAll(async () => {
    await sweepLeftovers();
    lab = await Lab.create({ pods: ['pod-a'] });
    server = await FakeApiServer.start();
    healthCheckNodePort = await freePort();
    const slice = endpointSlice([lab.pod('pod-a')]);
    for (const object of [node(), service(), slice, ...localLoadBalancer(healthCheckNodePort, slice)])
      server.create(object);
    kubeconfig = await kubeconfigFor(server);
    // kpng-ebpf attaches to this file's own cgroup (no process is ever moved in), never the root.
    const [root] = readCgroupV2Mounts();
    if (root === undefined) throw new Error('no cgroup v2 mount');
    cgroupRoot = join(root, `kpng-test-${process.pid}-${randomBytes(3).toString('hex')}`);
    mkdirSync(cgroupRoot);
  }, 60_000);
  afterAll(async () => {
    if (cgroupRoot !== undefined) rmdirSync(cgroupRoot);
    await lab?.delete();
    await server?.close();
    await kubeconfig?.remove();
  });

  describe.each(PROGRAMS)('%s', (name) => {
    let program: ChildProgram;
    let pid: number | undefined;
    let doors: Door[];
    beforeAll(async () => {
      program = await ChildProgram.create({
        program: name,
        netns: lab.node.namespace.name,
        kubeconfig,
        syncPeriod: '30s',
        ...(name === 'kpng-ebpf'
          ? { ebpf: { cgroupRoot: cgroupRoot!, manifest: webManifest(lab.pod('pod-a').ipv4) } }
          : {}),
      });
      program.start();
      pid = program.pid();
      // Bounded wait for its first sync (a few seconds on an idle machine; generous for a loaded one).
      for (let i = 0; i < 300 && program.exitCode() === undefined && (await program.healthz()) !== 200; i++)
        await sleep(100);
      expect(await program.healthz(), program.logs().slice(-3_000)).toBe(200);
      doors = [
        { name: 'metrics', port: portOf(program.metricsUrl) },
        { name: 'healthz', port: portOf(program.healthzUrl) },
      ].filter((door, i, all) => all.findIndex((d) => d.port === door.port) === i);
      if (SERVICE_PROGRAMS.includes(name)) {
        // The port opens after the sync that programmed the Service: the same bounded wait.
        const probe = () => rawGet(healthCheckNodePort, '/').then((r) => r.status);
        for (let i = 0; i < 300 && (await probe()) !== 200; i++) await sleep(100);
        expect(await probe(), program.logs().slice(-3_000)).toBe(200);
        doors.push({ name: 'health-check node port', port: healthCheckNodePort });
      }
    }, 60_000);
    afterAll(() => program?.close());

    it.each(HOSTILE_RAW_REQUESTS)(
      'answers $name at every door, and keeps answering',
      async ({ name: request, raw }) => {
        for (const door of doors) {
          const reply = await rawExchange(door.port, raw, { waitMs: 5_000 });
          // The health-check node port answers every path with the Service's health, as upstream's
          // handler (no mux): `GET //` gets its 200 there.
          const allowed = door.name === 'health-check node port' && request === 'GET //' ? [200] : HOSTILE_RAW_STATUSES;
          expect(allowed, `${door.name}: ${reply.text.slice(0, 200)}`).toContain(reply.status);
        }
        expect(program.pid()).toBe(pid);
        expect(program.exitCode(), program.logs().slice(-3_000)).toBeUndefined();
        expect(await program.healthz()).toBe(200);
      },
    );

    it('is the same process, counted what it refused, and met no unexpected error', async () => {
      expect(program.pid()).toBe(pid);
      expect(await program.metricSum('kpng_http_refused_requests_total{')).toBeGreaterThan(0);
      if (SERVICE_PROGRAMS.includes(name)) {
        const atPort = await program.metricSum('kpng_http_refused_requests_total{', 'server="service-health"');
        expect(atPort).toBeGreaterThan(0);
      }
      expect(await program.metricSum('kpng_unexpected_errors_total{')).toBe(0);
    });
  });
});
