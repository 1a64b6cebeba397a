import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { PolicyView } from './policy-view.js';
import { NODE, namespace, pod, policy } from '../../test/support/policy-world.js';
import { podKey, policyKey } from './types.js';

const NAMESPACES = ['a', 'b'] as const;
const LABELS = [{}, { app: 'x' }, { app: 'y' }, { app: 'x', tier: 'z' }] as const;
const SELECTORS = [
  {},
  { matchLabels: { app: 'x' } },
  { matchExpressions: [{ key: 'tier', operator: 'Exists' }] },
] as const;

const peer = fc.oneof(
  fc.record({ podSelector: fc.constantFrom(...SELECTORS) }),
  fc.record({ namespaceSelector: fc.constantFrom(...SELECTORS) }),
  fc.record({ namespaceSelector: fc.constantFrom(...SELECTORS), podSelector: fc.constantFrom(...SELECTORS) }),
  fc.constant({ ipBlock: { cidr: '198.18.1.0/28', except: ['198.18.1.4/30'] } }),
);
const port = fc.constantFrom({ port: 80 }, { port: 'http' }, { port: 8000, endPort: 8005 }, { protocol: 'UDP' });
const rule = fc.record({ from: fc.array(peer, { maxLength: 2 }), ports: fc.array(port, { maxLength: 2 }) });
const spec = fc.record({
  podSelector: fc.constantFrom(...SELECTORS),
  ingress: fc.array(rule, { maxLength: 2 }),
  egress: fc.array(
    rule.map(({ from, ports }) => ({ to: from, ports })),
    { maxLength: 2 },
  ),
  policyTypes: fc.constantFrom(['Ingress'], ['Egress'], ['Ingress', 'Egress']),
});

const op = fc.oneof(
  fc.record({
    kind: fc.constant('pod' as const),
    ns: fc.constantFrom(...NAMESPACES),
    n: fc.integer({ min: 1, max: 6 }),
    labels: fc.constantFrom(...LABELS),
    local: fc.boolean(),
    http: fc.constantFrom(80, 8080),
  }),
  fc.record({
    kind: fc.constant('deletePod' as const),
    ns: fc.constantFrom(...NAMESPACES),
    n: fc.integer({ min: 1, max: 6 }),
  }),
  fc.record({
    kind: fc.constant('namespace' as const),
    ns: fc.constantFrom(...NAMESPACES),
    labels: fc.constantFrom(...LABELS),
  }),
  fc.record({
    kind: fc.constant('policy' as const),
    ns: fc.constantFrom(...NAMESPACES),
    n: fc.integer({ min: 1, max: 3 }),
    spec,
  }),
  fc.record({
    kind: fc.constant('deletePolicy' as const),
    ns: fc.constantFrom(...NAMESPACES),
    n: fc.integer({ min: 1, max: 3 }),
  }),
  fc.constant({ kind: 'state' as const }),
  fc.constant({ kind: 'state' as const }),
);
type Op = typeof op extends fc.Arbitrary<infer T> ? T : never;

function apply(view: PolicyView, o: Op): void {
  switch (o.kind) {
    case 'pod': {
      const ip = NAMESPACES.indexOf(o.ns) * 10 + o.n;
      const ports = [{ name: 'http', containerPort: o.http }];
      view.setPod(pod(o.ns, `p${o.n}`, ip, o.labels, { node: o.local ? NODE : 'elsewhere', ports }));
      return;
    }
    case 'deletePod':
      return view.deletePod(podKey(o.ns, `p${o.n}`));
    case 'namespace':
      return view.setNamespace(namespace(o.ns, o.labels));
    case 'policy':
      return view.setPolicy(policy(o.ns, `np${o.n}`, o.spec));
    case 'deletePolicy':
      return view.deletePolicy(policyKey(o.ns, `np${o.n}`));
    case 'state':
      view.state();
  }
}

/** A view built from nothing but the current objects: every op replayed, policies last. */
function fromScratch(ops: readonly Op[]): PolicyView {
  const fresh = new PolicyView(NODE);
  const order = (o: Op): number => (o.kind === 'policy' || o.kind === 'deletePolicy' ? 1 : 0);
  [...ops]
    .filter((o) => o.kind !== 'state')
    .sort((x, y) => order(x) - order(y))
    .forEach((o) => apply(fresh, o));
  return fresh;
}

describe('PolicyView', () => {
  test('after every change, the incremental state equals the state computed from scratch', () => {
    fc.assert(
      fc.property(fc.array(op, { minLength: 15, maxLength: 40 }), (ops) => {
        const incremental = new PolicyView(NODE);
        ops.forEach((o, i) => {
          apply(incremental, o);
          expect(incremental.state().state).toEqual(fromScratch(ops.slice(0, i + 1)).state().state);
        });
      }),
      { numRuns: 100 },
    );
  });
});
