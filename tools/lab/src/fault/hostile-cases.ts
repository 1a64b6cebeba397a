// The hostile-objects cases of the fault suite, one after another, for any program: what differs
// per program (how a connection is probed, where its rules are read, how its metrics are read, how
// long to let an ignored object settle) comes in as `HostileProbes`. Run under traffic by
// packages/kube-proxy/test/fault/hostile-suite.ts (nft, iptables) and by the IPVS backend's VM
// suite (packages/ipvs/test/guest/program-hostile.guest.ts).
import type { FakeApiServer } from '../apiserver/index.js';
import type { LabPod } from '../netns/index.js';
import {
  burstService,
  hostileService,
  hostileSlice,
  LONGEST_LABEL,
  LONGEST_PORT_NAME,
  LONGEST_SUBDOMAIN,
  manyEndpoints,
  manyPorts,
} from './hostile-objects.js';

export type InvalidKind = 'Service' | 'EndpointSlice';

export interface HostileProbes {
  readonly server: FakeApiServer;
  /** The pod every hostile Service leads to (its echo port answering). */
  readonly pod: LabPod;
  /** Resolves once a new connection to ip:port answers (bounded); ms it took. */
  untilAnswers(ip: string, port: number): Promise<number>;
  /** Resolves once the node's rules, as text, satisfy `done` (bounded); ms it took. */
  untilRules(done: (text: string) => boolean): Promise<number>;
  /** `kpng_invalid_objects_total{kind}` now. */
  invalid(kind: InvalidKind): Promise<number>;
  /** Resolves once `kpng_invalid_objects_total{kind}` rose above `before` (bounded); by how much. */
  untilCounted(kind: InvalidKind, before: number): Promise<number>;
  /** How long an object that changes nothing (an FQDN slice, a slice without its Service) is given. */
  readonly settleMs: number;
  figure(what: string, figures: Record<string, string | number>): void;
}

/** The counter increments the cases saw: the FQDN slice (ignored, not invalid), the bad clusterIP, the bad address. */
export interface HostileCounts {
  readonly fqdnCountedInvalid: number;
  readonly invalidServiceCounted: number;
  readonly invalidSliceCounted: number;
}

const BURST = 1_000;
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * Extreme and invalid objects, one after another, each until programmed (answering, or in or gone
 * from the rules) or counted; throws on the first that is not (the probes' bounds).
 */
export async function runHostileCases(p: HostileProbes): Promise<HostileCounts> {
  const { server, pod } = p;
  // A Service with 100 ports, each answering.
  const ports = manyPorts(100);
  server.create(hostileService('many-ports', '198.19.0.20', ports));
  server.create(
    hostileSlice(
      'many-ports-1',
      'many-ports',
      ports.map((port) => port.name),
      [pod.ipv4],
    ),
  );
  const lastPortMs = await p.untilAnswers('198.19.0.20', ports.at(-1)!.port);
  const firstPortMs = await p.untilAnswers('198.19.0.20', ports[0]!.port);
  p.figure('Service with 100 ports', { lastPortAnsweredMs: lastPortMs, firstPortAnsweredMs: firstPortMs });

  // A slice with 1,000 endpoints (the pod and 999 that do not exist): all programmed.
  server.create(hostileService('many-endpoints', '198.19.0.21', [{ name: 'http', port: 80 }]));
  server.create(hostileSlice('many-endpoints-1', 'many-endpoints', ['http'], manyEndpoints(pod, 1_000)));
  const absent = /198\.18\.20[0-3]\.\d+/g;
  p.figure('slice with 1,000 endpoints', {
    allInRulesMs: await p.untilRules((t) => new Set(t.match(absent)).size === 999),
  });

  // The longest names: Service and port 63 characters, slice 253.
  server.create(hostileService(LONGEST_LABEL, '198.19.0.22', [{ name: LONGEST_PORT_NAME, port: 80 }]));
  server.create(hostileSlice(LONGEST_SUBDOMAIN, LONGEST_LABEL, [LONGEST_PORT_NAME], [pod.ipv4]));
  p.figure('63-character Service and port names, 253-character slice name', {
    answeredMs: await p.untilAnswers('198.19.0.22', 80),
  });

  // An FQDN slice for web: ignored (not invalid), web unchanged.
  const slicesBeforeFqdn = await p.invalid('EndpointSlice');
  server.create(hostileSlice('web-fqdn', 'web', ['http'], ['pod-x.example.invalid'], 'FQDN'));
  await sleep(p.settleMs);
  const fqdnCountedInvalid = (await p.invalid('EndpointSlice')) - slicesBeforeFqdn;
  p.figure('FQDN slice for web', { countedInvalid: fqdnCountedInvalid });

  // A slice without a Service, then its Service.
  server.create(hostileSlice('ghost-1', 'ghost', ['http'], [pod.ipv4]));
  await sleep(p.settleMs);
  server.create(hostileService('ghost', '198.19.0.24', [{ name: 'http', port: 80 }]));
  p.figure('slice without a Service, Service created later', {
    answeredAfterServiceMs: await p.untilAnswers('198.19.0.24', 80),
  });

  // 1,000 Services created in a burst, then deleted in a burst: none left in the rules.
  const burst = /198\.19\.[4-7]\.\d+/g;
  for (let i = 0; i < BURST; i++) server.create(burstService(i));
  const createdMs = await p.untilRules((t) => new Set(t.match(burst)).size === BURST);
  for (let i = 0; i < BURST; i++) server.delete(burstService(i));
  const deletedMs = await p.untilRules((t) => (t.match(burst)?.length ?? 0) === 0);
  p.figure('1,000 Services created then deleted in a burst', { allProgrammedMs: createdMs, allGoneMs: deletedMs });

  // A Service with an invalid clusterIP: counted, skipped; fixed, it answers.
  const servicesBefore = await p.invalid('Service');
  server.create(hostileSlice('fix-service-1', 'fix-service', ['http'], [pod.ipv4]));
  server.create(hostileService('fix-service', '198.19.0.300', [{ name: 'http', port: 80 }]));
  const invalidServiceCounted = await p.untilCounted('Service', servicesBefore);
  server.update(hostileService('fix-service', '198.19.0.23', [{ name: 'http', port: 80 }]));
  p.figure('Service with clusterIP 198.19.0.300, then fixed', {
    countedInvalid: invalidServiceCounted,
    fixAnsweredMs: await p.untilAnswers('198.19.0.23', 80),
  });

  // A slice with a bad address: counted, skipped; fixed, it answers.
  const slicesBefore = await p.invalid('EndpointSlice');
  server.create(hostileService('fix-slice', '198.19.0.25', [{ name: 'http', port: 80 }]));
  server.create(hostileSlice('fix-slice-1', 'fix-slice', ['http'], ['198.18.999.1']));
  const invalidSliceCounted = await p.untilCounted('EndpointSlice', slicesBefore);
  server.update(hostileSlice('fix-slice-1', 'fix-slice', ['http'], [pod.ipv4]));
  p.figure('slice with address 198.18.999.1, then fixed', {
    countedInvalid: invalidSliceCounted,
    fixAnsweredMs: await p.untilAnswers('198.19.0.25', 80),
  });
  return { fqdnCountedInvalid, invalidServiceCounted, invalidSliceCounted };
}
