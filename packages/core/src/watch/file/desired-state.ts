import { type ModelEvent, type NodeName, type ServiceObjectKind, serviceKey, sliceKey } from '../../model/types.js';
import type { Logger } from '../../util/log.js';
import {
  convertEndpointSlice,
  convertNode,
  convertService,
  convertServiceCIDR,
  reportInvalid,
} from '../convert/index.js';
import { classify, excludingLabel, rawKey } from './classify.js';
import type { ManifestObject } from './parse-manifest.js';

export type UpsertEvent = Extract<ModelEvent, { op: 'upsert' }>;

export interface DesiredObject {
  readonly event: UpsertEvent;
  /** Equal for equal model content (the trigger time is not content). */
  readonly fingerprint: string;
}

export type KindMap<T> = Readonly<Record<ServiceObjectKind, T>>;

/** Everything the manifests say should exist, per kind and key. */
export interface DesiredState {
  readonly objects: KindMap<ReadonlyMap<string, DesiredObject>>;
  /** Keys of objects that failed validation: a version delivered before is kept, not deleted. */
  readonly invalid: KindMap<ReadonlySet<string>>;
}

export interface DesiredStateOptions {
  /** Only this Node is read (kube-proxy watches its own Node only); all Nodes when unset. */
  readonly nodeName?: string;
  readonly log: Logger;
}

type Conversion = { ok: true; event: UpsertEvent | null } | { ok: false; errors: readonly string[] };

/** Converts one raw object; `event: null` when the object is legitimately ignored (headless...). */
function toEvent(kind: ServiceObjectKind, obj: unknown): Conversion {
  switch (kind) {
    case 'Service': {
      const r = convertService(obj);
      if (!r.ok) return r;
      const svc = r.value;
      return { ok: true, event: svc && { kind, op: 'upsert', key: serviceKey(svc.namespace, svc.name), object: svc } };
    }
    case 'EndpointSlice': {
      const r = convertEndpointSlice(obj);
      if (!r.ok) return r;
      const { slice, triggerTime } = r.value;
      const key = slice && sliceKey(slice.namespace, slice.name);
      return {
        ok: true,
        event: slice && {
          kind,
          op: 'upsert',
          key: key!,
          object: slice,
          ...(triggerTime !== undefined ? { triggerTime } : {}),
        },
      };
    }
    case 'Node': {
      const r = convertNode(obj);
      if (!r.ok) return r;
      return { ok: true, event: { kind, op: 'upsert', key: r.value.name as NodeName, object: r.value } };
    }
    case 'ServiceCIDR': {
      const r = convertServiceCIDR(obj);
      if (!r.ok) return r;
      return { ok: true, event: { kind, op: 'upsert', key: r.value.name, object: r.value } };
    }
  }
}

function emptyKindMap<T>(make: () => T): Record<ServiceObjectKind, T> {
  return { Service: make(), EndpointSlice: make(), Node: make(), ServiceCIDR: make() };
}

/** Classifies, filters and converts every manifest object; invalid ones are reported and skipped. */
export function desiredState(found: readonly ManifestObject[], opts: DesiredStateOptions): DesiredState {
  const objects = emptyKindMap(() => new Map<string, DesiredObject>());
  const invalid = emptyKindMap(() => new Set<string>());
  for (const item of found) {
    const classified = classify(item);
    if (classified.kind === undefined) {
      opts.log.debug(2, 'ignoring manifest object', { where: item.where, reason: classified.why });
      continue;
    }
    const { kind } = classified;
    const label = excludingLabel(kind, item.object);
    if (label !== undefined) {
      opts.log.debug(2, 'ignoring object hidden from this proxy by a label', { where: item.where, kind, label });
      continue;
    }
    if (kind === 'Node' && opts.nodeName !== undefined && rawKey(kind, item.object) !== opts.nodeName) continue;

    const converted = toEvent(kind, item.object);
    if (!converted.ok) {
      reportInvalid(kind, item.where, converted.errors);
      const key = rawKey(kind, item.object);
      if (key !== undefined) invalid[kind].add(key);
      continue;
    }
    const { event } = converted;
    if (event === null) continue;
    if (objects[kind].has(event.key))
      opts.log.warn('duplicate object, the later one wins', { kind, key: event.key, where: item.where });
    objects[kind].set(event.key, { event, fingerprint: JSON.stringify(event.object) });
  }
  return { objects, invalid };
}
