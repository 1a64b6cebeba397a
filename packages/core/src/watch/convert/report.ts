import type { ObjectKind } from '../../model/types.js';
import { invalidObjectsTotal } from '../../metrics/objects.js';
import { log } from '../../util/log.js';
import type { EventRecorder } from '../../events/event-recorder.js';

/**
 * The one way a source reports an object it could not convert: a warning naming the object and
 * every problem, and a count in `kpng_invalid_objects_total{kind}`. The object itself is skipped.
 */
export function reportInvalid(kind: ObjectKind, where: string, errors: readonly string[]): void {
  log.warn('ignoring invalid object', { kind, where, errors });
  invalidObjectsTotal.inc({ kind });
}

/** The longest note an Event carries (the API server refuses more than 1 KiB). */
const MAX_NOTE = 1024;

/**
 * `reportInvalid`, and a Warning Event about the object (`reason: InvalidObject`), so its owner sees
 * why the proxy ignores it (`kubectl describe`). The recorder aggregates repeats into a series.
 * `where` is the object's `namespace/name` (or `name`).
 */
export function reportingTo(events: EventRecorder): typeof reportInvalid {
  return (kind, where, errors) => {
    reportInvalid(kind, where, errors);
    const slash = where.indexOf('/');
    const name = slash < 0 ? where : where.slice(slash + 1);
    events.record({
      regarding: { kind, name, ...(slash < 0 ? {} : { namespace: where.slice(0, slash) }) },
      type: 'Warning',
      reason: 'InvalidObject',
      action: 'Proxy',
      note: `ignored by the service proxy: ${errors.join('; ')}`.slice(0, MAX_NOTE),
    });
  };
}
