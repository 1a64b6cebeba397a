// The HTTP doors of every kernel-programming program as a real child process (the compiled
// `dist/cli/main.js`, as shipped): kpng-nft, kpng-iptables and the compat kube-proxy (nftables mode;
// its iptables mode is the same binary and door). Each program runs once, alone, in one lab
// namespace set shared by the file; raw malformed requests go to its metrics and healthz ports, and
// the same pid keeps answering /healthz and /metrics and counts what it refused. `kpng` itself:
// core's src/cli/doors.e2e.test.ts (with slowloris and `ulimit -n`). Per-Service health-check ports
// bind node addresses, which a test may not bind on this host: their hostile requests are in core's
// service-health unit and property tests.
import { FakeApiServer, kernelE2e, kubeconfigFor, Lab, sweepLeftovers, type LabKubeconfig } from '@kpng/lab';
import { endpointSlice, node, service } from '@kpng/lab/fault';
import { HOSTILE_RAW_REQUESTS, HOSTILE_RAW_STATUSES, rawExchange } from '@kpng/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChildProgram } from './fault/child-program.js';
import type { ProgramName } from './fault/program-args.js';

const e2e = await kernelE2e('doors of every kernel program');
const PROGRAMS: readonly ProgramName[] = ['kpng-nft', 'kpng-iptables', 'kube-proxy nftables'];

const portOf = (url: string) => Number(new URL(url).port);

describe.skipIf(!e2e.run)('the HTTP doors of every kernel program, as real processes', () => {
  let lab: Lab;
  let server: FakeApiServer;
  let kubeconfig: LabKubeconfig;
  beforeAll(async () => {
    await sweepLeftovers();
    lab = await Lab.create({ pods: ['pod-a'] });
    server = await FakeApiServer.start();
    server.create(node());
    server.create(service());
    server.create(endpointSlice([lab.pod('pod-a')]));
    kubeconfig = await kubeconfigFor(server);
  }, 60_000);
  afterAll(async () => {
    await lab?.delete();
    await server?.close();
    await kubeconfig?.remove();
  });

  describe.each(PROGRAMS)('%s', (name) => {
    let program: ChildProgram;
    let pid: number | undefined;
    beforeAll(async () => {
      program = await ChildProgram.create({
        program: name,
        netns: lab.node.namespace.name,
        kubeconfig,
        syncPeriod: '30s',
      });
      program.start();
      pid = program.pid();
      // Bounded wait for its first sync (a few seconds on an idle machine; generous for a loaded one).
      for (let i = 0; i < 300 && (await program.healthz()) !== 200; i++) await new Promise((r) => setTimeout(r, 100));
      expect(await program.healthz(), program.logs().slice(-3_000)).toBe(200);
    }, 60_000);
    afterAll(() => program?.close());

    it.each(HOSTILE_RAW_REQUESTS)('answers $name on metrics and healthz, and keeps answering', async ({ raw }) => {
      for (const url of [program.metricsUrl, program.healthzUrl]) {
        const reply = await rawExchange(portOf(url), raw, { waitMs: 5_000 });
        expect(HOSTILE_RAW_STATUSES, `${url}: ${reply.text.slice(0, 200)}`).toContain(reply.status);
      }
      expect(program.pid()).toBe(pid);
      expect(program.exitCode(), program.logs().slice(-3_000)).toBeUndefined();
      expect(await program.healthz()).toBe(200);
    });

    it('is the same process, counted what it refused, and met no unexpected error', async () => {
      expect(program.pid()).toBe(pid);
      expect(await program.metricSum('kpng_http_refused_requests_total{')).toBeGreaterThan(0);
      expect(await program.metricSum('kpng_unexpected_errors_total{')).toBe(0);
    });
  });
});
