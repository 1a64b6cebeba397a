import type { StateChanges } from '../../nodeview/types.js';
import { toError } from '../../util/errors.js';
import type { Logger } from '../../util/log.js';
import { retryDelay, sleep, type BackoffOptions } from './backoff.js';
import { triggerTimesAfter } from '../changes.js';
import type { Delivery, ResumeToken, StateSource } from '../hub.js';

/** What the handler learns besides the state itself. */
export interface WatchInfo {
  readonly revision: number;
  readonly instanceId: string;
  /** Since the last state the handler completed; `updatedServices` is absent when `full`. */
  readonly changes: StateChanges;
  /** Treat everything as changed (first state, server restart, resumed too late, or after a handler failure the server forgot). */
  readonly full: boolean;
}

export type StateHandler<S> = (state: S, info: WatchInfo) => Promise<void> | void;

/** The resume position of one watch, kept across reconnects. */
export interface WatchCursor {
  token: ResumeToken | undefined;
  /** Consecutive failures (connection or handler) since the last delivered state; drives backoff. */
  failures: number;
}

export interface ConsumeOptions {
  readonly signal: AbortSignal | undefined;
  readonly backoff: BackoffOptions | undefined;
  readonly log: Logger;
  /** Trigger times at or before this (epoch ms) predate the consumer and are dropped. */
  readonly since: number;
}

/**
 * Pulls states from `source` one at a time: the next is asked for only after the handler resolved,
 * so a slow handler skips revisions. A handler that throws leaves the token where it was: after a
 * backoff the same source is asked again and answers with the current state and the union of every
 * change since the last state the handler completed. Returns on abort; rethrows source failures.
 */
export async function consume<S>(
  source: StateSource<S>,
  handler: StateHandler<S>,
  cursor: WatchCursor,
  o: ConsumeOptions,
): Promise<void> {
  while (!o.signal?.aborted) {
    let d: Delivery<S>;
    try {
      d = await source.next(cursor.token, o.signal);
    } catch (e) {
      if (o.signal?.aborted) return;
      throw e;
    }
    const restarted = cursor.token !== undefined && cursor.token.instanceId !== d.instanceId;
    const info: WatchInfo = {
      revision: d.revision,
      instanceId: d.instanceId,
      changes: triggerTimesAfter(d.changes, o.since),
      full: d.full || restarted,
    };
    try {
      await handler(d.state, info);
    } catch (e) {
      cursor.failures++;
      o.log.warn('state handler failed; retrying with the changes accumulated since', {
        revision: d.revision,
        err: toError(e),
      });
      await sleep(retryDelay(cursor.failures, o.backoff), o.signal);
      continue;
    }
    cursor.token = { instanceId: d.instanceId, revision: d.revision };
    cursor.failures = 0;
  }
}
