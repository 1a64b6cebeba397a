import { describe, expect, it } from 'vitest';
import type { ModelEvent, NodeName } from '../model/types.js';
import type { NodeLocalState, StateChanges } from '../nodeview/types.js';
import { namespace, pod, policy } from '../../test/support/policy-world.js';
import { podKey, policyKey } from '../policy/types.js';
import { NodeView } from './node-view.js';

const NODE = 'node-1' as NodeName; // policy-world's pods live on node-1

function policyCore() {
  let now = 5_000;
  const core = new NodeView({
    nodeName: NODE,
    policy: true,
    clock: { now: () => now, monotonic: () => now, setTimeout: () => ({ cancel() {} }) },
  });
  const seen: { state: NodeLocalState; changes: StateChanges }[] = [];
  core.addLocalConsumer({ publish: (state, changes) => seen.push({ state, changes }) });
  return { core, seen, advance: (ms: number) => (now += ms) };
}

const server = pod('default', 'server', 10, { app: 'server' });
const deny: ModelEvent = {
  kind: 'NetworkPolicy',
  op: 'upsert',
  key: policyKey('default', 'deny'),
  object: policy('default', 'deny', { podSelector: { matchLabels: { app: 'server' } } }),
};

describe('NodeView with the policy view', () => {
  it('carries no policy until every policy kind listed, then the whole view; a policy-only change publishes', () => {
    const { core, seen, advance } = policyCore();
    core.model.apply([
      { kind: 'Namespace', op: 'upsert', key: 'default', object: namespace('default', {}) },
      { kind: 'Pod', op: 'upsert', key: podKey('default', 'server'), object: server },
      deny,
    ]);
    for (const kind of ['Service', 'EndpointSlice', 'Node'] as const) core.model.synced(kind);
    expect(seen).toHaveLength(1);
    expect(seen[0]!.state.policy).toBeUndefined();
    core.model.synced('Pod');
    core.model.synced('Namespace');
    expect(seen).toHaveLength(1);
    advance(7);
    core.model.synced('NetworkPolicy');
    expect(seen).toHaveLength(2);
    expect(seen[1]!.changes.policyChangedAt).toBe(5_007);
    expect(seen[1]!.state.policy?.pods.get(podKey('default', 'server'))?.ingress.isolated).toBe(true);
    expect(core.state?.policy).toBe(seen[1]!.state.policy);

    advance(10);
    core.model.apply([{ kind: 'NetworkPolicy', op: 'delete', key: policyKey('default', 'deny') }]);
    expect(seen).toHaveLength(3);
    expect(seen[2]!.changes).toMatchObject({ updatedServices: new Set(), policyChangedAt: 5_017 });
    expect(seen[2]!.state.policy?.pods.get(podKey('default', 'server'))?.ingress.isolated).toBe(false);

    // A pod on another node changes nothing this node enforces: no state is published.
    core.model.apply([
      {
        kind: 'Pod',
        op: 'upsert',
        key: podKey('default', 'far'),
        object: pod('default', 'far', 20, { app: 'far' }, { node: 'node-2' }),
      },
    ]);
    expect(seen).toHaveLength(3);
  });

  it('without the option the state never carries a policy view', () => {
    const core = new NodeView({ nodeName: NODE });
    core.model.apply([{ kind: 'Pod', op: 'upsert', key: podKey('default', 'server'), object: server }, deny]);
    for (const kind of ['Service', 'EndpointSlice', 'Node', 'Pod', 'Namespace', 'NetworkPolicy'] as const)
      core.model.synced(kind);
    expect(core.state).toBeDefined();
    expect(core.state?.policy).toBeUndefined();
  });
});
