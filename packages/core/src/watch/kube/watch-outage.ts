import type { KubeWatchMetrics } from '../../metrics/kube-watch.js';
import type { ObjectKind } from '../../model/types.js';
import type { Clock } from '../../util/clock.js';
import type { Logger } from '../../util/log.js';

/** An outage at least this long is logged at info even when nothing failed (e.g. a slow relist). */
const NOTABLE_OUTAGE_MS = 1_000;

/**
 * Whether one kind has an open watch, and since when it has not: feeds the reconnect metrics and
 * logs, when a watch is back after a failure, how long it was gone. Time before the first watch
 * (the initial list) counts as down for the gauge, but the first opening is not a reconnect.
 */
export class WatchOutage {
  readonly #kind: ObjectKind;
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #metrics: KubeWatchMetrics | undefined;
  readonly #stopReporting: () => void;
  #open = false;
  #openedBefore = false;
  #lostAt: number;
  #failures = 0;

  constructor(kind: ObjectKind, clock: Clock, logger: Logger, metrics?: KubeWatchMetrics) {
    this.#kind = kind;
    this.#clock = clock;
    this.#logger = logger;
    this.#metrics = metrics;
    this.#lostAt = clock.monotonic();
    this.#stopReporting = metrics?.reportDownSeconds(kind, () => this.downMs() / 1000) ?? (() => {});
  }

  /** A watch request was answered 200: events flow again. */
  opened(): void {
    if (this.#open) return;
    const downMs = this.downMs();
    if (this.#openedBefore) {
      this.#metrics?.reconnected(this.#kind, downMs / 1000);
      const fields = { kind: this.#kind, downMs: Math.round(downMs), failedAttempts: this.#failures };
      if (this.#failures > 0 || downMs >= NOTABLE_OUTAGE_MS) this.#logger.info('watch is back', fields);
      else this.#logger.debug(2, 'watch reopened', fields);
    }
    this.#open = true;
    this.#openedBefore = true;
    this.#failures = 0;
  }

  /** The open watch ended (timeout, 410, a cut connection or stopping). */
  closed(): void {
    if (!this.#open) return;
    this.#open = false;
    this.#lostAt = this.#clock.monotonic();
  }

  /** An attempt to list or watch failed; returns how many have failed in a row. */
  failed(): number {
    this.closed();
    return ++this.#failures;
  }

  /** Milliseconds without an open watch; 0 while one is open. */
  downMs(): number {
    return this.#open ? 0 : this.#clock.monotonic() - this.#lostAt;
  }

  /** Stops reporting to the metrics (the source stopped). */
  dispose(): void {
    this.#stopReporting();
  }
}
