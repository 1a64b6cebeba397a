// Property: the addresses the IPVS backend binds to kube-ipvs0 come from states that passed core's
// render guard, and the real `ip -batch` in a namespace this file creates (and deletes) takes every
// batch: whatever the state (valid, or with hostile ClusterIPs, external and LB IPs: an injected
// `ip` command after an address, non-canonical or other-family text), the link ends up holding
// exactly the rendered addresses, every hostile Service is refused and counted, and nothing injected
// reaches the link. IPVS itself is only in the VM: its netlink encoder's refusals are property-tested
// in src/ipvs/codec.test.ts. This kernel has no dummy links either: kube-ipvs0 is a bridge here (made
// before the backend's host looks for it), which takes addresses as a dummy link does.
import { isCanonicalIP, RenderGuard, type NodeLocalState } from '@kpng/core';
import { nodeState, type ServiceFixture } from '@kpng/core/testing';
import { createNamespace, kernelE2e, sweepLeftovers, type NetworkNamespace } from '@kpng/lab';
import { processExecer, type Execer } from '@kpng/kit';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NodeHost } from '../src/backend/host.js';
import { renderDesired } from '../src/render/desired.js';
import { DEFAULT_IPVS_CONFIG } from '../src/render/options.js';

/** Cases (KPNG_FUZZ_RUNS for a longer local run): each is one `ip -batch` and one `ip -j addr show`. */
const RUNS = Number(process.env['KPNG_FUZZ_RUNS'] ?? 100);
/** Never rendered by a valid state (valid addresses use 203.0.113.1-200): seen on the link, it was injected. */
const INJECTED = '203.0.113.250';

const e2e = await kernelE2e('ipvs backend: fuzzed addresses through ip -batch');

const v4 = (n: number): string => `198.19.2.${n}`;
const v6 = (n: number): string => `2001:db8:19::2:${n.toString(16)}`;
const service = (i: number): fc.Arbitrary<ServiceFixture> =>
  fc.record({
    name: fc.constant(`svc-${i}`),
    clusterIPs: fc.constantFrom([v4(i + 1)], [v6(i + 1)], [v4(i + 1), v6(i + 1)]),
    externalIPs: fc.array(
      fc.oneof(
        fc.integer({ min: 1, max: 200 }).map((h) => `203.0.113.${h}`),
        fc.integer({ min: 1, max: 200 }).map((h) => `2001:db8:cb::${h}`),
      ),
      { maxLength: 2 },
    ),
    loadBalancerIPs: fc.array(
      fc.integer({ min: 1, max: 200 }).map((h) => `203.0.113.${h}`),
      { maxLength: 2 },
    ),
    ports: fc.constant([{ port: 80, nodePort: 0 }]),
    endpoints: fc.constant([{ ip: '198.18.1.10' }]),
  });

const hostileAddress = fc.oneof(
  fc.constant(`203.0.113.9/32 dev kube-ipvs0\naddr add ${INJECTED}`),
  fc.constant(`203.0.113.9 dev lo`),
  fc.constant('203.0.113.009'),
  fc.constant('2001:DB8::9'),
  fc.constant('::ffff:203.0.113.9'),
  fc.string().filter((s) => !isCanonicalIP(s)),
);

/** Which address of a Service a hostile edit replaces or adds. */
const field = fc.constantFrom('clusterIP', 'externalIPs', 'loadBalancerIPs');

interface Case {
  readonly state: NodeLocalState;
  readonly hostile: number;
}

const cases: fc.Arbitrary<Case> = fc
  .integer({ min: 1, max: 4 })
  .chain((n) => fc.tuple(...Array.from({ length: n }, (_, i) => service(i))))
  .chain((services) =>
    fc.tuple(
      fc.constant(services),
      fc.uniqueArray(fc.tuple(fc.nat(services.length - 1), field, hostileAddress), {
        maxLength: services.length,
        selector: ([i]) => i,
      }),
    ),
  )
  .map(([services, edits]) => {
    // Plain data after structuredClone: edited as a hostile stream could deliver it.
    const state = structuredClone(nodeState(services)) as { node: unknown; services: any[] };
    for (const [i, name, value] of edits) {
      const svc = state.services[i];
      const fa = svc.families.IPv4 ?? svc.families.IPv6;
      if (name === 'clusterIP') fa.clusterIP = value;
      else fa[name] = [...fa[name], value];
    }
    return { state: state as unknown as NodeLocalState, hostile: edits.length };
  });

describe.skipIf(!e2e.run)('fuzzed Service addresses through the real ip -batch', () => {
  let ns: NetworkNamespace;
  beforeAll(async () => {
    await sweepLeftovers();
    ns = await createNamespace('ipvs-prop');
  });
  afterAll(async () => {
    await ns?.delete();
  });

  it(
    'kube-ipvs0 holds exactly the rendered addresses; hostile Services refused and counted',
    async () => {
      const batches: string[] = [];
      const execer: Execer = {
        run(argv, stdin, signal) {
          if (argv.includes('-batch')) batches.push(stdin);
          return processExecer.run(argv, stdin, signal);
        },
      };
      await ns.exec(['ip', 'link', 'add', 'kube-ipvs0', 'type', 'bridge']);
      const host = new NodeHost(execer, ns.name);
      await host.ensureDummyLink();
      let refusedTotal = 0;
      const guard = new RenderGuard((refusal) => {
        expect(refusal.kind).toBe('Service');
        refusedTotal++;
      });
      const tally = { cases: 0, hostile: 0, batches: 0, addresses: 0 };
      let bound: string[] = [];
      await fc.assert(
        fc.asyncProperty(cases, async ({ state, hostile }) => {
          tally.cases++;
          tally.hostile += hostile;
          const before = refusedTotal;
          const desired = renderDesired(guard.state(state), DEFAULT_IPVS_CONFIG).addresses;
          expect(refusedTotal - before).toBe(hostile);
          const want = [...desired.IPv4, ...desired.IPv6];
          batches.length = 0;
          await host.changeAddresses(
            want.filter((ip) => !bound.includes(ip)),
            bound.filter((ip) => !want.includes(ip)),
          );
          tally.batches += batches.length;
          for (const batch of batches) for (const line of batch.split('\n')) expect(line).not.toContain(INJECTED);
          bound = (await host.addresses()).sort();
          expect(bound).toEqual([...want].sort());
          tally.addresses += want.length;
        }),
        { numRuns: RUNS },
      );
      // The last line of defence: ip -batch never starts with a non-canonical address.
      batches.length = 0;
      await expect(host.changeAddresses([`203.0.113.9\naddr add ${INJECTED}/32 dev kube-ipvs0`], [])).rejects.toThrow(
        /refusing/,
      );
      expect(batches).toEqual([]);
      console.log(
        `ipvs ip -batch fuzz: ${tally.cases} states, ${tally.hostile} hostile Services refused and counted, ${tally.batches} batches taken by ip, ${tally.addresses} addresses checked on kube-ipvs0`,
      );
      await host.deleteDummyLink();
    },
    // Not a bound on speed: vitest's default 30 s would end a slow run on a loaded machine.
    Math.max(300_000, RUNS * 3_000),
  );
});
