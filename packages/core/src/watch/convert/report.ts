import type { ObjectKind } from '../../model/types.js';
import { invalidObjectsTotal } from '../../metrics/objects.js';
import { log } from '../../util/log.js';

/**
 * The one way a source reports an object it could not convert: a warning naming the object and
 * every problem, and a count in `kpng_invalid_objects_total{kind}`. The object itself is skipped.
 */
export function reportInvalid(kind: ObjectKind, where: string, errors: readonly string[]): void {
  log.warn('ignoring invalid object', { kind, where, errors });
  invalidObjectsTotal.inc({ kind });
}
