// The fault suite's hostile objects (issue 15) for the IPVS backend: kpng-ipvs (bundled, see
// kpng-ipvs-child.ts) reads the lab's fake API server on the guest's loopback and programs the lab's
// node namespace in the VM. The cases of packages/kube-proxy/test/fault/hostile-suite.ts, objects
// from `@kpng/lab/fault`: while pod-a opens a new connection to `web` every 20 ms (none may fail),
// the API server serves one extreme or invalid object after another; each case waits until its
// object answers or is in (or gone from) IPVS, prints a figure, and the invalid ones must be counted
// exactly once and their fixes applied.
import { FakeApiServer, kubeconfigFor, Lab, probeSteadily, type LabKubeconfig, type SteadyResult } from '@kpng/lab';
import {
  burstService,
  CLUSTER_IP,
  ECHO_PORT,
  endpointSlice,
  hostileService,
  hostileSlice,
  LONGEST_LABEL,
  LONGEST_PORT_NAME,
  LONGEST_SUBDOMAIN,
  manyEndpoints,
  manyPorts,
  node,
  NODE_NAME,
  printFigure,
  service,
  SERVICE_PORT,
} from '@kpng/lab/fault';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KpngIpvsChild } from './kpng-ipvs-child.js';

const PROGRAM = 'kpng-ipvs (VM, kernel 6.1)';
/** Budgets under emulation on a loaded host (figures are printed; no wall-clock assertion). */
const START_BUDGET_MS = 240_000;
const APPLY_BUDGET_MS = 120_000;
/** Traffic in windows of this length until every case is done (at most MAX_CASES_MS). */
const WINDOW_MS = 10_000;
const MAX_CASES_MS = 480_000;
const BURST = 1_000;
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

describe('kpng-ipvs stays up and serving through hostile objects (VM)', () => {
  let lab: Lab;
  let server: FakeApiServer;
  let kubeconfig: LabKubeconfig;
  let child: KpngIpvsChild;

  /** Probes until a new connection to ip:port answers; ms it took. */
  const untilAnswers = async (ip: string, port: number): Promise<number> => {
    const started = Date.now();
    let last = '';
    while (Date.now() - started < APPLY_BUDGET_MS) {
      const r = await lab.probe(lab.pod('pod-a').namespace, { proto: 'tcp', ip, port, timeoutMs: 1_000 });
      if (r.ok) return Date.now() - started;
      last = r.error ?? '?';
      await sleep(500);
    }
    throw new Error(`${ip}:${port} never answered within ${APPLY_BUDGET_MS} ms (last: ${last})`);
  };
  /** Polls `ipvsadm -Sn` until `done(text)`; ms it took. */
  const untilIpvs = async (what: string, done: (text: string) => boolean): Promise<number> => {
    const started = Date.now();
    while (Date.now() - started < APPLY_BUDGET_MS) {
      if (done((await lab.node.namespace.exec(['ipvsadm', '-Sn'])).stdout)) return Date.now() - started;
      await sleep(1_000);
    }
    throw new Error(`IPVS never reached ${what} within ${APPLY_BUDGET_MS} ms`);
  };
  /** Polls a counter until it rose above `before`, then once more a sync later; by how much. */
  const untilCounted = async (series: string, before: number): Promise<number> => {
    await child.waitFor(`${series} to rise`, async () => (await child.metric(series)) > before, APPLY_BUDGET_MS);
    await sleep(3_000); // one more sync period: counted once, not once per sync
    return (await child.metric(series)) - before;
  };
  /** New connections every 20 ms, in windows back to back, until `done` settles. */
  const steadyUntil = async (done: Promise<unknown>): Promise<SteadyResult> => {
    let finished = false;
    void done.finally(() => (finished = true)).catch(() => {});
    const started = Date.now();
    let attempts = 0;
    const failures: SteadyResult['failures'][number][] = [];
    while (!finished && Date.now() - started < MAX_CASES_MS) {
      const r = await probeSteadily(lab.pod('pod-a').namespace, {
        ip: CLUSTER_IP,
        port: SERVICE_PORT,
        durationMs: WINDOW_MS,
      });
      attempts += r.attempts;
      failures.push(...r.failures);
    }
    return { started, attempts, failures, servers: [] };
  };

  beforeAll(async () => {
    lab = await Lab.create({ pods: ['pod-a', 'pod-b', 'pod-c'] });
    await lab.startEcho('pod-b', [ECHO_PORT]);
    await lab.startEcho('pod-c', [ECHO_PORT]);
    server = await FakeApiServer.start();
    server.create(node({ ipv4Only: true }));
    server.create(service());
    server.create(endpointSlice([lab.pod('pod-b')]));
    kubeconfig = await kubeconfigFor(server);
    child = new KpngIpvsChild({
      netns: lab.node.namespace.name,
      source: { kubeconfig: kubeconfig.path },
      nodeName: NODE_NAME,
      syncPeriod: '3s',
    });
    child.start();
    await child.waitFor('the first sync', async () => child.syncOperations().length > 0, START_BUDGET_MS);
    await untilAnswers(CLUSTER_IP, SERVICE_PORT);
  });
  afterAll(async () => {
    await child?.stop();
    await lab?.delete();
    await server?.close();
    await kubeconfig?.remove();
  });

  it(
    'extreme and invalid objects: no connection to web fails, invalid ones are counted once, fixes land',
    async () => {
      const c = lab.pod('pod-c');
      const invalid = (kind: string): string => `kpng_invalid_objects_total{kind="${kind}"}`;
      const figure = (what: string, figures: Record<string, string | number>): void =>
        printFigure(PROGRAM, `hostile: ${what}`, figures);
      let casesDone!: () => void;
      const cases = new Promise<void>((resolve) => (casesDone = resolve));
      const traffic = steadyUntil(cases);
      traffic.catch(() => {}); // awaited below; a failure before that must not go unhandled
      await sleep(1_000);
      const casesStarted = Date.now();
      let [fqdnCounted, serviceCounted, sliceCounted] = [-1, -1, -1];
      try {
        const ports = manyPorts(100);
        server.create(hostileService('many-ports', '198.19.0.20', ports));
        server.create(
          hostileSlice(
            'many-ports-1',
            'many-ports',
            ports.map((p) => p.name),
            [c.ipv4],
          ),
        );
        const lastPortMs = await untilAnswers('198.19.0.20', ports.at(-1)!.port);
        figure('Service with 100 ports', {
          lastPortAnsweredMs: lastPortMs,
          firstPortAnsweredMs: await untilAnswers('198.19.0.20', ports[0]!.port),
        });

        const addresses = manyEndpoints(c, 1_000);
        server.create(hostileService('many-endpoints', '198.19.0.21', [{ name: 'http', port: 80 }]));
        server.create(hostileSlice('many-endpoints-1', 'many-endpoints', ['http'], addresses));
        const absent = /198\.18\.20[0-3]\.\d+/g;
        figure('slice with 1,000 endpoints', {
          allInIpvsMs: await untilIpvs('999 absent real servers', (t) => new Set(t.match(absent)).size === 999),
        });

        server.create(hostileService(LONGEST_LABEL, '198.19.0.22', [{ name: LONGEST_PORT_NAME, port: 80 }]));
        server.create(hostileSlice(LONGEST_SUBDOMAIN, LONGEST_LABEL, [LONGEST_PORT_NAME], [c.ipv4]));
        figure('63-character Service and port names, 253-character slice name', {
          answeredMs: await untilAnswers('198.19.0.22', 80),
        });

        const slicesBeforeFqdn = await child.metric(invalid('EndpointSlice'));
        server.create(hostileSlice('web-fqdn', 'web', ['http'], ['pod-x.example.invalid'], 'FQDN'));
        await sleep(6_000); // two sync periods
        fqdnCounted = (await child.metric(invalid('EndpointSlice'))) - slicesBeforeFqdn;
        figure('FQDN slice for web', { countedInvalid: fqdnCounted });

        server.create(hostileSlice('ghost-1', 'ghost', ['http'], [c.ipv4]));
        await sleep(3_000);
        server.create(hostileService('ghost', '198.19.0.24', [{ name: 'http', port: 80 }]));
        figure('slice without a Service, Service created later', {
          answeredAfterServiceMs: await untilAnswers('198.19.0.24', 80),
        });

        const burst = /198\.19\.[4-7]\.\d+/g;
        for (let i = 0; i < BURST; i++) server.create(burstService(i));
        const createdMs = await untilIpvs('1,000 burst Services', (t) => new Set(t.match(burst)).size === BURST);
        for (let i = 0; i < BURST; i++) server.delete(burstService(i));
        const deletedMs = await untilIpvs('no burst Service', (t) => (t.match(burst)?.length ?? 0) === 0);
        figure('1,000 Services created then deleted in a burst', { allInIpvsMs: createdMs, allGoneMs: deletedMs });

        const servicesBefore = await child.metric(invalid('Service'));
        server.create(hostileSlice('fix-service-1', 'fix-service', ['http'], [c.ipv4]));
        server.create(hostileService('fix-service', '198.19.0.300', [{ name: 'http', port: 80 }]));
        serviceCounted = await untilCounted(invalid('Service'), servicesBefore);
        server.update(hostileService('fix-service', '198.19.0.23', [{ name: 'http', port: 80 }]));
        figure('Service with clusterIP 198.19.0.300, then fixed', {
          countedInvalid: serviceCounted,
          fixAnsweredMs: await untilAnswers('198.19.0.23', 80),
        });

        const slicesBefore = await child.metric(invalid('EndpointSlice'));
        server.create(hostileService('fix-slice', '198.19.0.25', [{ name: 'http', port: 80 }]));
        server.create(hostileSlice('fix-slice-1', 'fix-slice', ['http'], ['198.18.999.1']));
        sliceCounted = await untilCounted(invalid('EndpointSlice'), slicesBefore);
        server.update(hostileSlice('fix-slice-1', 'fix-slice', ['http'], [c.ipv4]));
        figure('slice with address 198.18.999.1, then fixed', {
          countedInvalid: sliceCounted,
          fixAnsweredMs: await untilAnswers('198.19.0.25', 80),
        });
      } finally {
        casesDone();
      }
      const casesMs = Date.now() - casesStarted;
      const result = await traffic;
      figure('web throughout', { failed: `${result.failures.length}/${result.attempts}`, casesMs });
      expect(result.failures, child.logs().slice(-3_000)).toEqual([]);
      expect(casesMs, 'every case ran under traffic').toBeLessThan(MAX_CASES_MS);
      expect(fqdnCounted, 'an FQDN slice is ignored, not invalid').toBe(0);
      expect([serviceCounted, sliceCounted], 'each invalid object counted once').toEqual([1, 1]);
    },
    MAX_CASES_MS + 120_000,
  );
});
