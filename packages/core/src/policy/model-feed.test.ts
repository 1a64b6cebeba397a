import { describe, expect, it } from 'vitest';
import { GlobalModel } from '../model/global-model.js';
import type { ChangeSet } from '../model/change-set.js';
import type { ModelEvent } from '../model/types.js';
import { feedPolicyChanges, feedPolicyModel, hasPolicyChanges } from './model-feed.js';
import { PolicyView } from './policy-view.js';
import { cluster, namespace, NODE, pod, policy } from '../../test/support/policy-world.js';
import { podKey, policyKey } from './types.js';

function syncedModel(): { model: GlobalModel; changes: ChangeSet[] } {
  const model = new GlobalModel(0);
  const changes: ChangeSet[] = [];
  model.onChange((c) => changes.push(c));
  for (const kind of ['Service', 'EndpointSlice', 'Node', 'Pod', 'Namespace', 'NetworkPolicy'] as const)
    model.synced(kind);
  return { model, changes };
}

const denyServer = policy('default', 'deny', { podSelector: { matchLabels: { app: 'server' } } });
const allowClients = policy('default', 'allow', {
  podSelector: { matchLabels: { app: 'server' } },
  ingress: [{ from: [{ podSelector: { matchLabels: { app: 'client' } }, namespaceSelector: {} }] }],
});

function initialEvents(): ModelEvent[] {
  const { namespaces, pods } = cluster();
  return [
    ...namespaces.map((ns): ModelEvent => ({ kind: 'Namespace', op: 'upsert', key: ns.name, object: ns })),
    ...pods.map((p): ModelEvent => ({ kind: 'Pod', op: 'upsert', key: podKey(p.namespace, p.name), object: p })),
    { kind: 'NetworkPolicy', op: 'upsert', key: policyKey('default', 'deny'), object: denyServer },
  ];
}

/** A view built from the model's whole content: what the incremental feed must equal. */
function rebuilt(model: GlobalModel) {
  const view = new PolicyView(NODE);
  feedPolicyModel(view, model);
  return view.state().state;
}

describe('the policy view fed from the global model', () => {
  it('follows each transaction the model commits, as a view rebuilt from the model would', () => {
    const { model, changes } = syncedModel();
    const view = new PolicyView(NODE);
    const steps: ModelEvent[][] = [
      initialEvents(),
      [{ kind: 'NetworkPolicy', op: 'upsert', key: policyKey('default', 'allow'), object: allowClients }],
      [{ kind: 'Namespace', op: 'upsert', key: 'other', object: namespace('other', { team: 'c' }) }],
      [{ kind: 'Pod', op: 'delete', key: podKey('default', 'client') }],
      [
        {
          kind: 'Pod',
          op: 'upsert',
          key: podKey('third', 'client'),
          object: pod('third', 'client', 15, { app: 'other' }, { node: 'node-2' }),
        },
        { kind: 'NetworkPolicy', op: 'delete', key: policyKey('default', 'deny') },
      ],
      [{ kind: 'Namespace', op: 'delete', key: 'other' }],
    ];
    for (const events of steps) {
      const before = changes.length;
      model.apply(events);
      expect(changes.length).toBe(before + 1);
      feedPolicyChanges(view, model, changes.at(-1)!);
      expect(view.state().state).toEqual(rebuilt(model));
    }
    const { pods, groups } = view.state().state;
    const server = pods.get(podKey('default', 'server'));
    // Isolated by `allow`, whose one peer left is other/client (default's was deleted, third's relabelled).
    expect(server?.ingress.isolated).toBe(true);
    const named = server?.ingress.allow.flatMap((r) => (r.peers?.group === undefined ? [] : [r.peers.group])) ?? [];
    expect(named.map((key) => groups.get(key))).toEqual([{ kind: 'ips', ips: ['198.18.1.13', '2001:db8:1::13'] }]);
  });

  it('commits no revision for an unchanged Pod, Namespace or NetworkPolicy (hash-deduplicated)', () => {
    const { model, changes } = syncedModel();
    model.apply(initialEvents());
    const revision = model.revision;
    const count = changes.length;
    model.apply(initialEvents());
    expect(model.revision).toBe(revision);
    expect(changes.length).toBe(count);
    expect(model.counts()).toMatchObject({ Pod: cluster().pods.length, Namespace: 3, NetworkPolicy: 1 });
  });

  it('reports service-only transactions as carrying no policy change', () => {
    const { model, changes } = syncedModel();
    model.apply([
      {
        kind: 'Node',
        op: 'upsert',
        key: NODE as never,
        object: { name: NODE, labels: {}, podCIDRs: [], addresses: [], eligible: true },
      },
    ]);
    expect(hasPolicyChanges(changes.at(-1)!)).toBe(false);
    model.apply(initialEvents());
    expect(hasPolicyChanges(changes.at(-1)!)).toBe(true);
  });

  it('a relist (replaceAll) of Pods deletes the ones it no longer mentions', () => {
    const { model } = syncedModel();
    model.apply(initialEvents());
    const kept = cluster().pods.filter((p) => p.name !== 'client');
    model.replaceAll(
      'Pod',
      kept.map((p): ModelEvent => ({ kind: 'Pod', op: 'upsert', key: podKey(p.namespace, p.name), object: p })),
    );
    expect([...model.podKeys()].sort()).toEqual(kept.map((p) => podKey(p.namespace, p.name)).sort());
  });
});
