/**
 * Apply: run a plan's operations against HNS in order, updating the mirror as each succeeds. HNS
 * has no transactions, so atomicity is by undo: when an operation fails, the ones already done are
 * reversed (created load balancers and endpoints deleted, deleted ones recreated with their old
 * settings) and the error is rethrown. If the undo fails too, the mirror is marked stale and the
 * next (full) sync reconciles against what HNS really holds.
 */
import { canonicalGuid } from '../hcn/guid.js';
import type { Hns } from '../hcn/hns.js';
import type { HostComputeLoadBalancer } from '../hcn/schema.js';
import { loadBalancerJson } from '../hcn/schema.js';
import { appliedEndpoint, appliedLoadBalancer, type HnsMirror } from './mirror.js';
import { placeholder, type HnsOperation } from './plan.js';

export interface ApplyObserver {
  /** One HNS call, its outcome. */
  call(operation: HnsOperation['kind'], ok: boolean): void;
}

type Done =
  | { readonly kind: 'createdLoadBalancer'; readonly id: string; readonly key: string }
  | { readonly kind: 'createdEndpoint'; readonly id: string }
  | { readonly kind: 'deletedLoadBalancer'; readonly op: Extract<HnsOperation, { kind: 'deleteLoadBalancer' }> }
  | { readonly kind: 'deletedEndpoint'; readonly op: Extract<HnsOperation, { kind: 'deleteEndpoint' }> };

export class UndoFailedError extends Error {
  override readonly name = 'UndoFailedError';
}

export async function applyPlan(
  hns: Hns,
  mirror: HnsMirror,
  operations: readonly HnsOperation[],
  observer: ApplyObserver,
): Promise<void> {
  const done: Done[] = [];
  const created = new Map<string, string>(); // placeholder -> new endpoint ID
  const call = async <T>(kind: HnsOperation['kind'], fn: () => Promise<T>): Promise<T> => {
    try {
      const out = await fn();
      observer.call(kind, true);
      return out;
    } catch (e) {
      observer.call(kind, false);
      throw e;
    }
  };
  try {
    for (const op of operations) {
      switch (op.kind) {
        case 'deleteLoadBalancer':
          await call(op.kind, () => hns.deleteLoadBalancer(op.lb.id));
          if (mirror.loadBalancers.get(op.lb.key)?.id === op.lb.id) mirror.deleteLoadBalancer(op.lb.key);
          done.push({ kind: 'deletedLoadBalancer', op });
          break;
        case 'deleteEndpoint':
          await call(op.kind, () => hns.deleteEndpoint(op.endpoint.id));
          mirror.removeEndpoint(op.endpoint.id);
          done.push({ kind: 'deletedEndpoint', op });
          break;
        case 'createEndpoint': {
          const ep = await call(op.kind, () =>
            hns.createEndpoint(JSON.parse(op.settings).HostComputeNetwork as string, op.settings),
          );
          const applied = appliedEndpoint(ep, op.settings);
          mirror.putEndpoint(applied);
          created.set(placeholder(op.ip), applied.id);
          done.push({ kind: 'createdEndpoint', id: applied.id });
          break;
        }
        case 'createLoadBalancer': {
          const doc = withEndpointIds(op.doc, created);
          const settings = loadBalancerJson(doc);
          const lb = await call(op.kind, () => hns.createLoadBalancer(settings));
          const applied = appliedLoadBalancer({ ...doc, ID: lb.ID ?? '' }, op.service, settings);
          mirror.setLoadBalancer(applied);
          done.push({ kind: 'createdLoadBalancer', id: applied.id, key: op.key });
          break;
        }
      }
    }
  } catch (e) {
    await undo(hns, mirror, done).catch((undoError: unknown) => {
      throw new UndoFailedError(
        `${e instanceof Error ? e.message : String(e)}; undoing the partial apply failed too: ${undoError instanceof Error ? undoError.message : String(undoError)}`,
        { cause: e },
      );
    });
    throw e;
  }
}

function withEndpointIds(doc: HostComputeLoadBalancer, created: ReadonlyMap<string, string>): HostComputeLoadBalancer {
  return {
    ...doc,
    HostComputeEndpoints: (doc.HostComputeEndpoints ?? []).map((id) => {
      if (!id.startsWith('new:')) return id;
      const real = created.get(id);
      if (real === undefined) throw new Error(`internal: endpoint ${id} was not created before its load balancer`);
      return real;
    }),
  };
}

async function undo(hns: Hns, mirror: HnsMirror, done: readonly Done[]): Promise<void> {
  const renamed = new Map<string, string>(); // old endpoint ID -> recreated endpoint ID
  for (const step of [...done].reverse()) {
    switch (step.kind) {
      case 'createdLoadBalancer':
        await hns.deleteLoadBalancer(step.id);
        mirror.deleteLoadBalancer(step.key);
        break;
      case 'createdEndpoint':
        await hns.deleteEndpoint(step.id);
        mirror.removeEndpoint(step.id);
        break;
      case 'deletedEndpoint': {
        const { endpoint } = step.op;
        const networkId = (JSON.parse(endpoint.settings) as { HostComputeNetwork?: string }).HostComputeNetwork ?? '';
        const ep = await hns.createEndpoint(networkId, endpoint.settings);
        const applied = appliedEndpoint(ep, endpoint.settings);
        mirror.putEndpoint(applied);
        renamed.set(endpoint.id, applied.id);
        break;
      }
      case 'deletedLoadBalancer': {
        const { lb } = step.op;
        const doc = JSON.parse(lb.settings) as HostComputeLoadBalancer;
        const restored = {
          ...doc,
          HostComputeEndpoints: (doc.HostComputeEndpoints ?? []).map((id) => renamed.get(canonicalGuid(id)) ?? id),
        };
        const settings = loadBalancerJson(restored);
        const back = await hns.createLoadBalancer(settings);
        mirror.setLoadBalancer(appliedLoadBalancer({ ...restored, ID: back.ID ?? '' }, lb.service, settings));
        break;
      }
    }
  }
}
