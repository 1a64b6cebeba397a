import { withoutNestedCIDRs } from '../util/ip.js';
import { sameContent } from '../util/same-content.js';
import type { NetworkPolicyModel, PodKey, PolicyKey, PolicyNamespace, PolicyPod } from '../policy/types.js';
import type { ModelSink } from './sink.js';
import { ChangeSetBuilder, type ChangeSet } from './change-set.js';
import type { ModelReader } from './reader.js';
import {
  serviceKey,
  type EndpointSliceModel,
  type ModelEvent,
  type NodeModel,
  type NodeName,
  type ObjectKind,
  POLICY_KINDS,
  type ServiceCIDRModel,
  type ServiceKey,
  type ServiceModel,
  type SliceKey,
} from './types.js';

interface Stored<T> {
  readonly object: T;
}

/** Counts what the model receives vs what it keeps: API events, revisions, objects held. */
export interface ModelObserver {
  eventsReceived(kind: ObjectKind, count: number): void;
  revisionCommitted(revision: number, changes: ChangeSet): void;
  objectCount(kind: ObjectKind, count: number): void;
}

export type ModelListener = (changes: ChangeSet) => void;

/** The kinds every source delivers: nothing is served before their initial lists. ServiceCIDRs are optional. */
const REQUIRED_KINDS: readonly ObjectKind[] = ['Service', 'EndpointSlice', 'Node'];

/**
 * The global model, KPNG's "diffstore": objects keyed and compared by content; a transaction whose
 * events change no content (resyncs, heartbeats, fields the converters dropped) commits no revision
 * and wakes no listener.
 */
export class GlobalModel implements ModelReader, ModelSink {
  #revision = 0;
  readonly #services = new Map<ServiceKey, Stored<ServiceModel>>();
  readonly #slices = new Map<SliceKey, Stored<EndpointSliceModel>>();
  readonly #slicesByService = new Map<ServiceKey, Map<SliceKey, EndpointSliceModel>>();
  readonly #nodes = new Map<NodeName, Stored<NodeModel>>();
  readonly #serviceCIDRObjects = new Map<string, Stored<ServiceCIDRModel>>();
  // Watched only for NetworkPolicy enforcement (empty otherwise).
  readonly #pods = new Map<PodKey, Stored<PolicyPod>>();
  readonly #namespaces = new Map<string, Stored<PolicyNamespace>>();
  readonly #policies = new Map<PolicyKey, Stored<NetworkPolicyModel>>();
  #serviceCIDRs: readonly string[] = [];
  readonly #synced = new Set<ObjectKind>();
  readonly #listeners = new Set<ModelListener>();

  /** @param startTime trigger times at or before this (epoch ms) are never reported as latency. */
  constructor(
    private readonly startTime: number,
    private readonly observer?: ModelObserver,
  ) {}

  get revision(): number {
    return this.#revision;
  }

  /** True once every source kind delivered its initial list: nothing is served before. */
  get allSynced(): boolean {
    return REQUIRED_KINDS.every((k) => this.#synced.has(k));
  }

  onChange(listener: ModelListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Whether `kind` delivered its initial list (the policy kinds are awaited by their consumer, not by `allSynced`). */
  isSynced(kind: ObjectKind): boolean {
    return this.#synced.has(kind);
  }

  synced(kind: ObjectKind): void {
    if (this.#synced.has(kind)) return;
    const wasSynced = this.allSynced;
    this.#synced.add(kind);
    // Becoming fully synced is itself a change consumers wait for, even with an empty cluster; so is
    // a policy kind's initial list once the rest is synced (the policy consumer waits for it).
    if (this.allSynced && (!wasSynced || (POLICY_KINDS as readonly ObjectKind[]).includes(kind))) {
      this.#commit(new ChangeSetBuilder(), true);
    }
  }

  apply(events: readonly ModelEvent[]): void {
    const changes = new ChangeSetBuilder();
    const counts = new Map<ObjectKind, number>();
    for (const ev of events) {
      counts.set(ev.kind, (counts.get(ev.kind) ?? 0) + 1);
      this.#applyOne(ev, changes);
    }
    for (const [kind, n] of counts) this.observer?.eventsReceived(kind, n);
    if (!changes.empty) this.#commit(changes, false);
  }

  replaceAll(kind: ObjectKind, events: readonly ModelEvent[]): void {
    const present = new Set<string>(events.filter((e) => e.op === 'upsert').map((e) => e.key));
    const stale: ModelEvent[] = [];
    const keys: Iterable<string> = this.#keysOf(kind);
    for (const key of keys) {
      if (!present.has(key)) stale.push({ kind, op: 'delete', key } as ModelEvent);
    }
    this.apply([...stale, ...events]);
  }

  #keysOf(kind: ObjectKind): Iterable<string> {
    switch (kind) {
      case 'Service':
        return this.#services.keys();
      case 'EndpointSlice':
        return this.#slices.keys();
      case 'Node':
        return this.#nodes.keys();
      case 'ServiceCIDR':
        return this.#serviceCIDRObjects.keys();
      case 'Pod':
        return this.#pods.keys();
      case 'Namespace':
        return this.#namespaces.keys();
      case 'NetworkPolicy':
        return this.#policies.keys();
    }
  }

  // ModelReader
  pod(key: PodKey): PolicyPod | undefined {
    return this.#pods.get(key)?.object;
  }
  namespace(name: string): PolicyNamespace | undefined {
    return this.#namespaces.get(name)?.object;
  }
  networkPolicy(key: PolicyKey): NetworkPolicyModel | undefined {
    return this.#policies.get(key)?.object;
  }
  podKeys(): Iterable<PodKey> {
    return this.#pods.keys();
  }
  namespaceNames(): Iterable<string> {
    return this.#namespaces.keys();
  }
  networkPolicyKeys(): Iterable<PolicyKey> {
    return this.#policies.keys();
  }
  service(key: ServiceKey): ServiceModel | undefined {
    return this.#services.get(key)?.object;
  }
  slicesOf(key: ServiceKey): Iterable<EndpointSliceModel> {
    return this.#slicesByService.get(key)?.values() ?? [];
  }
  node(name: NodeName): NodeModel | undefined {
    return this.#nodes.get(name)?.object;
  }
  serviceKeys(): Iterable<ServiceKey> {
    return this.#services.keys();
  }
  serviceCIDRs(): readonly string[] {
    return this.#serviceCIDRs;
  }
  /** Every object, for serving the global model to node agents (central-core mode). */
  snapshot(): GlobalSnapshot {
    return {
      revision: this.#revision,
      services: [...this.#services.values()].map((s) => s.object),
      endpointSlices: [...this.#slices.values()].map((s) => s.object),
      nodes: [...this.#nodes.values()].map((s) => s.object),
      serviceCIDRs: [...this.#serviceCIDRObjects.values()].map((s) => s.object),
    };
  }
  counts(): Readonly<Record<ObjectKind, number>> {
    return {
      Service: this.#services.size,
      EndpointSlice: this.#slices.size,
      Node: this.#nodes.size,
      ServiceCIDR: this.#serviceCIDRObjects.size,
      Pod: this.#pods.size,
      Namespace: this.#namespaces.size,
      NetworkPolicy: this.#policies.size,
    };
  }

  #applyOne(ev: ModelEvent, changes: ChangeSetBuilder): void {
    switch (ev.kind) {
      case 'Service':
        if (ev.op === 'upsert' ? upsert(this.#services, ev.key, ev.object) : this.#services.delete(ev.key)) {
          changes.services.add(ev.key);
        }
        return;
      case 'Node':
        if (ev.op === 'upsert' ? upsert(this.#nodes, ev.key, ev.object) : this.#nodes.delete(ev.key)) {
          changes.nodes.add(ev.key);
        }
        return;
      case 'EndpointSlice':
        if (ev.op === 'delete') this.#deleteSlice(ev.key, changes);
        else this.#upsertSlice(ev.key, ev.object, ev.triggerTime, changes);
        return;
      case 'ServiceCIDR':
        if (
          ev.op === 'upsert'
            ? upsert(this.#serviceCIDRObjects, ev.key, ev.object)
            : this.#serviceCIDRObjects.delete(ev.key)
        ) {
          this.#unionServiceCIDRs(changes);
        }
        return;
      case 'Pod':
        if (ev.op === 'upsert' ? upsert(this.#pods, ev.key, ev.object) : this.#pods.delete(ev.key)) {
          changes.pods.add(ev.key);
        }
        return;
      case 'Namespace':
        if (ev.op === 'upsert' ? upsert(this.#namespaces, ev.key, ev.object) : this.#namespaces.delete(ev.key)) {
          changes.namespaces.add(ev.key);
        }
        return;
      case 'NetworkPolicy':
        if (ev.op === 'upsert' ? upsert(this.#policies, ev.key, ev.object) : this.#policies.delete(ev.key)) {
          changes.policies.add(ev.key);
        }
        return;
    }
  }

  /** Recomputes the union; only a different union is a change (two objects may share a range). */
  #unionServiceCIDRs(changes: ChangeSetBuilder) {
    // Disjoint (a range inside another dropped): the nft backend writes them into an interval set.
    const all = [...new Set([...this.#serviceCIDRObjects.values()].flatMap((s) => s.object.cidrs))].sort();
    const union = withoutNestedCIDRs(all);
    if (sameContent(union, this.#serviceCIDRs)) return;
    this.#serviceCIDRs = union;
    changes.serviceCIDRs = true;
  }

  #upsertSlice(key: SliceKey, slice: EndpointSliceModel, triggerTime: number | undefined, changes: ChangeSetBuilder) {
    const before = this.#slices.get(key);
    if (!upsert(this.#slices, key, slice)) return;
    const svc = serviceKey(slice.namespace, slice.serviceName);
    if (before) {
      const oldSvc = serviceKey(before.object.namespace, before.object.serviceName);
      if (oldSvc !== svc) this.#unindexSlice(oldSvc, key, changes);
    }
    let index = this.#slicesByService.get(svc);
    if (!index) this.#slicesByService.set(svc, (index = new Map()));
    index.set(key, slice);
    changes.services.add(svc);
    if (triggerTime !== undefined && triggerTime > this.startTime) changes.addTriggerTime(svc, triggerTime);
  }

  #deleteSlice(key: SliceKey, changes: ChangeSetBuilder) {
    const before = this.#slices.get(key);
    if (!before) return;
    this.#slices.delete(key);
    const svc = serviceKey(before.object.namespace, before.object.serviceName);
    this.#unindexSlice(svc, key, changes);
    changes.dropTriggerTimes(svc);
  }

  #unindexSlice(svc: ServiceKey, key: SliceKey, changes: ChangeSetBuilder) {
    const index = this.#slicesByService.get(svc);
    index?.delete(key);
    if (index?.size === 0) this.#slicesByService.delete(svc);
    changes.services.add(svc);
  }

  #commit(changes: ChangeSetBuilder, force: boolean) {
    if (changes.empty && !force) return;
    this.#revision += 1;
    const set = changes.build(this.#revision);
    this.observer?.revisionCommitted(this.#revision, set);
    for (const [kind, n] of Object.entries(this.counts()) as [ObjectKind, number][])
      this.observer?.objectCount(kind, n);
    if (!this.allSynced) return;
    for (const l of this.#listeners) l(set);
  }
}

export interface GlobalSnapshot {
  readonly revision: number;
  readonly services: readonly ServiceModel[];
  readonly endpointSlices: readonly EndpointSliceModel[];
  readonly nodes: readonly NodeModel[];
  readonly serviceCIDRs: readonly ServiceCIDRModel[];
}

/** Stores `object` unless it has the content already stored; returns whether anything changed. */
function upsert<K, T>(map: Map<K, Stored<T>>, key: K, object: T): boolean {
  const stored = map.get(key);
  if (stored !== undefined && sameContent(stored.object, object)) return false;
  map.set(key, { object });
  return true;
}
