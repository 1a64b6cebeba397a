import type { ModelEvent, NodeName, ServiceObjectKind, ServiceKey, SliceKey } from '../../model/types.js';
import type { DesiredState } from './desired-state.js';

const KINDS: readonly ServiceObjectKind[] = ['Node', 'Service', 'EndpointSlice', 'ServiceCIDR'];

function deleteEvent(kind: ServiceObjectKind, key: string): ModelEvent {
  switch (kind) {
    case 'Service':
      return { kind, op: 'delete', key: key as ServiceKey };
    case 'EndpointSlice':
      return { kind, op: 'delete', key: key as SliceKey };
    case 'Node':
      return { kind, op: 'delete', key: key as NodeName };
    case 'ServiceCIDR':
      return { kind, op: 'delete', key };
  }
}

/**
 * What this source has handed to the sink, by kind and key (with a content fingerprint), so each
 * read can be turned into the difference: upserts for new or changed objects, deletes for vanished
 * ones. An object that is now invalid is neither: its last delivered version stays.
 */
export class DeliveredObjects {
  private readonly delivered: Record<ServiceObjectKind, Map<string, string>> = {
    Service: new Map(),
    EndpointSlice: new Map(),
    Node: new Map(),
    ServiceCIDR: new Map(),
  };

  /** The events that turn the delivered state into `desired`; the delivered state is updated. */
  reconcile(desired: DesiredState): readonly ModelEvent[] {
    const events: ModelEvent[] = [];
    for (const kind of KINDS) {
      const delivered = this.delivered[kind];
      for (const [key, { event, fingerprint }] of desired.objects[kind]) {
        if (delivered.get(key) === fingerprint) continue;
        delivered.set(key, fingerprint);
        events.push(event);
      }
      for (const key of [...delivered.keys()]) {
        if (desired.objects[kind].has(key) || desired.invalid[kind].has(key)) continue;
        delivered.delete(key);
        events.push(deleteEvent(kind, key));
      }
    }
    return events;
  }

  count(kind: ServiceObjectKind): number {
    return this.delivered[kind].size;
  }
}
