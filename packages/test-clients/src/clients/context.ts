import type { Dialer } from '../probe/dialer.js';
import type { Clock } from '../util/clock.js';
import type { Logger } from '../util/log.js';

/** What every client gets injected: time, the way to reach targets, and where to log. */
export interface ClientContext {
  readonly clock: Clock;
  readonly dialer: Dialer;
  readonly logger: Logger;
}
