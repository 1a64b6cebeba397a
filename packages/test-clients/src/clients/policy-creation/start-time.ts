import { annotation, creationTime, CREATED_AT_ANNOTATION, parseTime, type KubeObject } from '../../kube/objects.js';

/** Where a measurement's start came from, best first. */
export type StartSource = 'annotation' | 'watch' | 'creationTimestamp';

export interface StartTime {
  /** Epoch ms. */
  readonly at: number;
  readonly source: StartSource;
  /** The API server's (whole-second) creationTimestamp, for comparison in logs. */
  readonly creationTimestamp?: number;
}

/**
 * When an object was created, as precisely as we can tell:
 * 1. the `test-clients.kpng.io/created-at` annotation (milliseconds, stamped by the creator);
 * 2. the moment this client's watch delivered the creation (milliseconds, client clock; later than
 *    the truth by the watch delivery delay, usually a few ms);
 * 3. `metadata.creationTimestamp` (whole seconds, truncated: up to 1 s early; API server clock),
 *    which is all upstream uses, and all there is for objects that existed before the client.
 */
export function creationStart(obj: KubeObject, seenLiveAt: number | undefined): StartTime | undefined {
  const created = creationTime(obj);
  const withCreated = created !== undefined ? { creationTimestamp: created } : {};
  const stamped = parseTime(annotation(obj, CREATED_AT_ANNOTATION));
  if (stamped !== undefined) return { at: stamped, source: 'annotation', ...withCreated };
  if (seenLiveAt !== undefined) return { at: seenLiveAt, source: 'watch', ...withCreated };
  if (created !== undefined) return { at: created, source: 'creationTimestamp', creationTimestamp: created };
  return undefined;
}
