// Property: whatever node-local state reaches the iptables backend (valid ones, and hostile ones as a
// malformed or compromised stream could decode them), every restore input it writes passes the real
// `iptables-restore --test` / `ip6tables-restore --test` and then loads, in a namespace this file
// creates and deletes, on iptables-legacy and iptables-nft; every hostile value was refused and counted
// in kpng_render_refused_total (exactly the edited Services, endpoints and node values); and no line
// holds a value that did not pass core's validators, nor any part of an injected rule.
//
// Generators: valid states built the real way (Service fixtures through core's node view), then
// hostile edits on a structured clone: text after an address, a newline and a rule of its own (marked
// EVIL), non-canonical or other-family addresses, out-of-range numbers, unknown protocols.
import {
  formatIP,
  isAffinityTimeout,
  isCanonicalCIDR,
  isCanonicalIP,
  isInterfaceName,
  isPort,
  type IPFamily,
  type LocalService,
  type NodeLocalState,
} from '@kpng/core';
import {
  fullSyncRequest,
  nodeState,
  OTHER_NODE,
  RecordingLogger,
  THIS_NODE,
  type ServiceFixture,
} from '@kpng/core/testing';
import { createNamespace, kernelE2e, sweepLeftovers, type NetworkNamespace } from '@kpng/lab';
import fc from 'fast-check';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IptablesBackend } from '../src/backend/iptables-backend.js';
import { tokenize } from '../src/iptables/fake/tables.js';
import { FLAVOURS, testingFirstExecer } from './e2e-helpers.js';

const MARKER = 'EVIL';

const byte = fc.integer({ min: 0, max: 255 });
const podIPv4 = fc
  .tuple(fc.integer({ min: 1, max: 2 }), fc.integer({ min: 1, max: 254 }))
  .map(([n, h]) => `198.18.${n}.${h}`);
const podIPv6 = fc
  .tuple(fc.integer({ min: 1, max: 2 }), fc.integer({ min: 1, max: 0xffff }))
  .map(([n, h]) => `2001:db8:${n}::${h.toString(16)}`);
const lbIPv4 = fc.integer({ min: 1, max: 254 }).map((h) => `203.0.113.${h}`);
const lbIPv6 = fc.integer({ min: 1, max: 0xffff }).map((h) => `2001:db8:cb::${h.toString(16)}`);
const rangeV4 = fc
  .integer({ min: 24, max: 32 })
  .chain((len) =>
    byte.map((b) => formatIP({ family: 'IPv4', bytes: [203, 0, 113, b & (0xff << (32 - len))] }) + `/${len}`),
  );
const rangeV6 = fc.integer({ min: 1, max: 0xff }).map((g) => `2001:db8:${g.toString(16)}::/48`);

const portFixture = fc.record({
  name: fc.constantFrom('', 'http', 'dns', 'p-1'),
  protocol: fc.constantFrom('TCP' as const, 'UDP' as const, 'SCTP' as const),
  port: fc.integer({ min: 1, max: 65535 }),
  nodePort: fc.oneof(fc.constant(0), fc.integer({ min: 30000, max: 32767 })),
  targetPort: fc.integer({ min: 1, max: 65535 }),
});

const endpointFixture = fc.record({
  ip: fc.oneof(podIPv4, podIPv6),
  node: fc.constantFrom(THIS_NODE as string, OTHER_NODE),
  ready: fc.boolean(),
  serving: fc.boolean(),
  terminating: fc.boolean(),
});

/** Service `i` (its ClusterIPs are unique: 198.19.1.i, 2001:db8:19::i). */
const serviceFixture = (i: number): fc.Arbitrary<ServiceFixture> =>
  fc.record(
    {
      name: fc.constant(`svc-${i}`),
      clusterIPs: fc
        .constantFrom(['v4'], ['v6'], ['v4', 'v6'], ['v6', 'v4'])
        .map((fams) => fams.map((f) => (f === 'v4' ? `198.19.1.${i + 1}` : `2001:db8:19::${(i + 1).toString(16)}`))),
      externalIPs: fc.array(fc.oneof(lbIPv4, lbIPv6), { maxLength: 2 }),
      loadBalancerIPs: fc.array(fc.oneof(lbIPv4, lbIPv6), { maxLength: 2 }),
      sourceRanges: fc.array(fc.oneof(rangeV4, rangeV6), { maxLength: 2 }),
      ports: fc.uniqueArray(portFixture, { minLength: 1, maxLength: 3, selector: (p) => `${p.name}/${p.protocol}` }),
      affinity: fc.integer({ min: 1, max: 86400 }),
      externalLocal: fc.boolean(),
      internalLocal: fc.boolean(),
      endpoints: fc.uniqueArray(endpointFixture, { maxLength: 4, selector: (e) => e.ip }),
    },
    { requiredKeys: ['name', 'clusterIPs', 'ports'] },
  );

const validServices: fc.Arbitrary<ServiceFixture[]> = fc
  .integer({ min: 1, max: 5 })
  .chain((n) => fc.tuple(...Array.from({ length: n }, (_, i) => serviceFixture(i))));

/** An injected rule of its own after a value: the classic. */
const injection = (value: string): string => `${value}\n-A KUBE-SERVICES -m comment --comment ${MARKER} -j ACCEPT`;

/** Text in an address field that no validator accepts. */
const hostileAddress = (valid: string, otherFamily: string): fc.Arbitrary<string> =>
  fc.oneof(
    fc.constant(injection(valid)),
    fc.constant(`${valid} -j ${MARKER}`),
    fc.constant(`${valid}/32`),
    fc.constant(otherFamily),
    fc.constant(valid.toUpperCase().replace(/^([0-9.]+)$/, '$1.0')),
    fc.constant(valid.includes(':') ? `::ffff:198.18.0.1` : valid.replace(/\.(\d+)$/, '.0$1')),
    fc.string().filter((s) => !isCanonicalIP(s)),
  );

const hostileCIDR = (valid: string): fc.Arbitrary<string> =>
  fc.oneof(
    fc.constant(injection(valid)),
    fc.constant(valid.replace('/', '/0')),
    fc.constant(valid.replace(/\/\d+$/, '/129')),
    fc.constant(valid.replace(/\/\d+$/, '')),
    fc.string(),
  );

const hostilePort = fc.constantFrom(0, -1, 65536, 1.5, Number.NaN, 1e9, Number.POSITIVE_INFINITY);
const hostileNodePort = fc.constantFrom(-1, 65536, 2.5, Number.NaN);
const hostileProtocol = fc.constantFrom('tcp', 'ICMP', '', `TCP\n-A KUBE-SERVICES -j ${MARKER}`, 'TCP -j ACCEPT');

/** Which value a hostile edit changes. */
type Target = 'Service' | 'endpoint' | 'node';

interface HostileEdit {
  readonly target: Target;
  readonly describe: string;
  /** Applies the edit to a structured clone of the state; false when the state has nothing to edit there. */
  readonly apply: (state: MutableState, rand: number) => boolean;
}

// The states are plain data after structuredClone: a test edits them freely (`any` below).
type MutableState = { node: any; services: any[] };

const pick = <T>(list: readonly T[], rand: number): T | undefined => list[Math.floor(rand * list.length) % list.length];

function serviceEdit(describe: string, edit: (svc: any, rand: number) => boolean) {
  return (state: MutableState, rand: number): boolean => {
    const svc = pick(
      state.services.filter((s: LocalService & { __edited?: string }) => s.__edited === undefined),
      rand,
    );
    if (svc === undefined || !edit(svc, rand)) return false;
    svc.__edited = describe;
    return true;
  };
}

/** One hostile edit of a Service-level value, an endpoint or the node, with its hostile value. */
const hostileEdit: fc.Arbitrary<HostileEdit> = fc.oneof(
  hostileAddress('198.19.1.1', '2001:db8::1').map((value): HostileEdit => ({
    target: 'Service',
    describe: `clusterIP ${JSON.stringify(value)}`,
    apply: serviceEdit('clusterIP', (svc: any) => {
      const fa = svc.families.IPv4 ?? svc.families.IPv6;
      const family: IPFamily = svc.families.IPv4 ? 'IPv4' : 'IPv6';
      const ip =
        family === 'IPv4' ? value : value.replace('198.19.1.1', '2001:db8:19::1').replace('2001:db8::1', '198.19.1.1');
      if (isCanonicalIP(ip, family)) return false;
      fa.clusterIP = ip;
      return true;
    }),
  })),
  hostileAddress('203.0.113.7', '2001:db8::7').map((value): HostileEdit => ({
    target: 'Service',
    describe: `externalIP ${JSON.stringify(value)}`,
    apply: serviceEdit('externalIP', (svc: any) => {
      if (svc.families.IPv4 === undefined) return false;
      svc.families.IPv4.externalIPs = [...svc.families.IPv4.externalIPs, value];
      return true;
    }),
  })),
  hostileAddress('203.0.113.8', '2001:db8::8').map((value): HostileEdit => ({
    target: 'Service',
    describe: `loadBalancerIP ${JSON.stringify(value)}`,
    apply: serviceEdit('loadBalancerIP', (svc: any) => {
      if (svc.families.IPv4 === undefined) return false;
      svc.families.IPv4.loadBalancerIPs = [...svc.families.IPv4.loadBalancerIPs, value];
      return true;
    }),
  })),
  hostileCIDR('203.0.113.0/24').map((value): HostileEdit => ({
    target: 'Service',
    describe: `loadBalancerSourceRange ${JSON.stringify(value)}`,
    apply: serviceEdit('sourceRange', (svc: any) => {
      if (svc.families.IPv4 === undefined) return false;
      svc.families.IPv4.loadBalancerSourceRanges = [...svc.families.IPv4.loadBalancerSourceRanges, value];
      return true;
    }),
  })),
  hostilePort.map((value): HostileEdit => ({
    target: 'Service',
    describe: `port ${value}`,
    apply: serviceEdit('port', (svc: any, rand) => (((pick(svc.ports, rand) as any).port = value), true)),
  })),
  hostileNodePort.map((value): HostileEdit => ({
    target: 'Service',
    describe: `nodePort ${value}`,
    apply: serviceEdit('nodePort', (svc: any, rand) => (((pick(svc.ports, rand) as any).nodePort = value), true)),
  })),
  hostileProtocol.map((value): HostileEdit => ({
    target: 'Service',
    describe: `protocol ${JSON.stringify(value)}`,
    apply: serviceEdit('protocol', (svc: any, rand) => (((pick(svc.ports, rand) as any).protocol = value), true)),
  })),
  fc.constantFrom(0, 86401, 1.5, -3).map((value): HostileEdit => ({
    target: 'Service',
    describe: `affinity timeout ${value}`,
    apply: serviceEdit(
      'affinity',
      (svc: any) => ((svc.sessionAffinity = { type: 'ClientIP', timeoutSeconds: value }), true),
    ),
  })),
  fc.tuple(hostileAddress('198.18.1.99', '2001:db8:1::99'), fc.boolean()).map(([value, port]): HostileEdit => ({
    target: 'endpoint',
    describe: port ? 'endpoint port 0' : `endpoint ${JSON.stringify(value)}`,
    apply: (state, rand) => {
      // An endpoint of a Service no Service-level edit touched (one object in every list it is in).
      const candidates: [any, any, IPFamily][] = [];
      for (const svc of state.services)
        if (svc.__edited === undefined || svc.__edited === 'endpoint')
          for (const p of svc.ports)
            for (const [family, fe] of Object.entries(p.endpoints) as [IPFamily, any][])
              for (const ep of fe.allReachable) if (!ep.__edited) candidates.push([svc, ep, family]);
      const [svc, ep, family] = pick(candidates, rand) ?? [];
      if (svc === undefined || family === undefined) return false;
      const ip = family === 'IPv6' ? swapFamily(value) : value;
      if (!port && isCanonicalIP(ip, family)) return false;
      if (port) ep.port = 0;
      else ep.ip = ip;
      ep.__edited = true;
      svc.__edited = 'endpoint';
      return true;
    },
  })),
  fc.tuple(hostileAddress('198.18.255.9', '2001:db8:ff::9'), fc.boolean()).map(([value, cidr]): HostileEdit => ({
    target: 'node',
    describe: `node ${cidr ? 'podCIDR' : 'address'} ${JSON.stringify(value)}`,
    apply: (state) => {
      if (cidr ? isCanonicalCIDR(`${value}/24`) : isCanonicalIP(value)) return false;
      if (cidr) state.node.podCIDRs = [...state.node.podCIDRs, `${value}/24`];
      else state.node.addresses = [...state.node.addresses, value];
      return true;
    },
  })),
);

/** The IPv6 form of an IPv4-based hostile value (and the other way round for the other-family case). */
function swapFamily(value: string): string {
  return value.includes('2001:db8:1::99')
    ? value.replace('2001:db8:1::99', '198.18.1.99')
    : value.replace('198.18.1.99', '2001:db8:1::99');
}

interface Case {
  readonly state: NodeLocalState;
  /** The edits that applied, by target. */
  readonly edits: readonly HostileEdit[];
}

/** A valid state, then up to `maxEdits` hostile edits on a structured clone of it. */
const hostileCase = (maxEdits: number): fc.Arbitrary<Case> =>
  fc
    .tuple(
      validServices,
      fc.array(fc.tuple(hostileEdit, fc.double({ min: 0, max: 0.999, noNaN: true })), { maxLength: maxEdits }),
    )
    .map(([services, edits]) => {
      const state = structuredClone(nodeState(services)) as unknown as MutableState;
      const applied = edits.filter(([edit, rand]) => edit.apply(state, rand)).map(([edit]) => edit);
      return { state: state as unknown as NodeLocalState, edits: applied };
    });

/** Cases per flavour (KPNG_FUZZ_RUNS for a longer local run): each is one full sync, 2 families x (--test + load). */
const RUNS = Number(process.env['KPNG_FUZZ_RUNS'] ?? 25);

const e2e = await kernelE2e('iptables backend: fuzzed node-local states');

type Counts = Record<Target, number>;

async function refused(registry: Registry): Promise<Counts> {
  const counts: Counts = { Service: 0, endpoint: 0, node: 0 };
  const metric = registry.getSingleMetric('kpng_render_refused_total');
  for (const v of (await metric?.get())?.values ?? []) counts[v.labels['kind'] as Target] += v.value;
  return counts;
}

/** What the guard must have refused in `state`: the edited Services, each edited endpoint once per port and family, the node edits. */
function expected(state: NodeLocalState, edits: readonly HostileEdit[]): Counts {
  const services = state.services as (LocalService & { __edited?: string })[];
  let endpoints = 0;
  for (const svc of services) {
    if (svc.__edited !== 'endpoint') continue;
    for (const port of svc.ports)
      for (const fe of Object.values(port.endpoints)) {
        const lists = [fe.cluster, fe.local, fe.internal, fe.external, fe.allReachable, fe.serving];
        endpoints += new Set(lists.flat().filter((ep) => (ep as { __edited?: boolean }).__edited)).size;
      }
  }
  return {
    Service: services.filter((s) => s.__edited !== undefined && s.__edited !== 'endpoint').length,
    endpoint: endpoints,
    node: edits.filter((e) => e.target === 'node').length,
  };
}

const PROTOCOLS = new Set(['tcp', 'udp', 'sctp']);

/** Every value in a rule line passed core's validators; no line carries any part of an injected rule. */
function checkInput(input: string): number {
  let values = 0;
  for (const line of input.split('\n')) {
    expect(line, line).not.toContain(MARKER);
    expect(line).not.toMatch(/[\r\0]/);
    if (!line.startsWith('-A ') && !line.startsWith('-I ')) continue;
    const tokens = tokenize(line);
    tokens.forEach((token, i) => {
      const option = tokens[i - 1];
      let ok: boolean;
      if (option === '-d' || option === '-s') ok = isCanonicalIP(token) || isCanonicalCIDR(token);
      else if (option === '--to-destination') {
        const m = /^(?:\[([^\]]+)\]|([^:]+)):(\d+)$/.exec(token);
        ok = m !== null && isCanonicalIP(m[1] ?? m[2]) && isPort(Number(m[3]));
      } else if (option === '--dport') ok = isPort(Number(token)) && String(Number(token)) === token;
      else if (option === '--seconds') ok = isAffinityTimeout(Number(token)) && String(Number(token)) === token;
      else if (option === '-p') ok = PROTOCOLS.has(token);
      else if (option === '-i') ok = isInterfaceName(token.replace(/\+$/, ''));
      else return;
      values++;
      expect(ok, `${option} ${token} in ${line}`).toBe(true);
    });
  }
  return values;
}

describe.skipIf(!e2e.run)('fuzzed node-local states through the real iptables-restore', () => {
  let ns: NetworkNamespace;
  beforeAll(async () => {
    await sweepLeftovers();
    ns = await createNamespace('ipt-prop');
  });
  afterAll(async () => {
    await ns?.delete();
  });

  it.each(FLAVOURS)(
    'iptables-%s: every input passes --test and loads; hostile values refused and counted',
    async (flavour) => {
      const inputs: string[] = [];
      const execer = testingFirstExecer(inputs);
      const registry = new Registry();
      const backend = new IptablesBackend({
        // NodeCIDR: the node's pod CIDRs are rendered (`-s`), so hostile ones are exercised too.
        localDetector: { mode: 'NodeCIDR' },
        nodePortAddresses: ['198.18.255.0/24', '2001:db8:ff::/64'],
        flavour,
        netns: ns.name,
        execer,
        conntrack: false,
        metrics: registry,
        log: new RecordingLogger(),
      });
      const tally = { cases: 0, hostile: 0, refused: 0, restores: 0, values: 0 };
      await fc.assert(
        fc.asyncProperty(hostileCase(4), async ({ state, edits }) => {
          tally.cases++;
          if (edits.length > 0) tally.hostile++;
          inputs.length = 0;
          const before = await refused(registry);
          await backend.sync(fullSyncRequest(state, tally.cases));
          const after = await refused(registry);
          const delta = {
            Service: after.Service - before.Service,
            endpoint: after.endpoint - before.endpoint,
            node: after.node - before.node,
          };
          expect(delta, edits.map((e) => e.describe).join('; ')).toEqual(expected(state, edits));
          tally.refused += delta.Service + delta.endpoint + delta.node;
          expect(inputs.length).toBeGreaterThanOrEqual(2);
          tally.restores += inputs.length;
          for (const input of inputs) tally.values += checkInput(input);
        }),
        { numRuns: RUNS },
      );
      console.log(
        `iptables-${flavour} fuzz: ${tally.cases} states (${tally.hostile} with hostile edits), ${tally.refused} values refused and counted, ${tally.restores} restore inputs passed --test and loaded, ${tally.values} rendered values validated`,
      );
      await backend.cleanup();
    },
    // Not a bound on speed: vitest's default 30 s would end a slow run of RUNS syncs on a loaded machine.
    Math.max(300_000, RUNS * 3_000),
  );
});
