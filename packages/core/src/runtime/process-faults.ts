import { log as defaultLog, type Logger } from '../util/log.js';

/**
 * What every kpng program does with an exception or promise rejection that nothing handled
 * (docs/hostile-input.md, "Process policy"): it is counted in `kpng_unexpected_errors_total{kind}`,
 * logged with its stack (at most LOG_BURST lines per LOG_WINDOW_MS, then a count of what was
 * suppressed), and the process carries on. It does not exit: the kernel rules stay as they are
 * either way, and an exit would turn any remaining bug reachable from input into a crash loop on
 * every node at once. A fault that stops progress still gets the process restarted, by the probe
 * that measures progress: `/livez` fails once no sync has completed for 2 x syncPeriod.
 */

export type FaultKind = 'uncaughtException' | 'unhandledRejection';

const LOG_BURST = 10;
const LOG_WINDOW_MS = 60_000;

/**
 * One count per process (the handlers are per process), kept without prom-client so that a
 * program's entry loads no metrics library before it knows it will serve metrics:
 * `registerProcessFaults` (metrics/process-faults.ts) exposes these counts.
 */
const counts = new Map<FaultKind, number>();

/** How many faults of each kind this process has seen. */
export function processFaultCounts(): ReadonlyMap<FaultKind, number> {
  return counts;
}

export interface FaultPolicy {
  /** What the process handlers call; exported for tests, which must not install process handlers. */
  handle(kind: FaultKind, error: unknown): void;
}

/** The policy's counting and (rate-limited) logging, without touching `process`. */
export function faultPolicy(log: Pick<Logger, 'error'> = defaultLog, now: () => number = Date.now): FaultPolicy {
  let windowStart = -Infinity;
  let logged = 0;
  let suppressed = 0;
  return {
    handle(kind, error) {
      counts.set(kind, (counts.get(kind) ?? 0) + 1);
      const t = now();
      if (t - windowStart >= LOG_WINDOW_MS) {
        if (suppressed > 0) log.error('unexpected errors not logged in the last window', { suppressed });
        windowStart = t;
        logged = 0;
        suppressed = 0;
      }
      if (logged >= LOG_BURST) {
        suppressed++;
        return;
      }
      logged++;
      const err = error instanceof Error ? error : new Error(String(error));
      log.error('unexpected error; carrying on (kpng_unexpected_errors_total)', {
        kind,
        err: err.message,
        stack: err.stack,
      });
    },
  };
}

let installed = false;

/** Installs the policy on this process, once (later calls do nothing). `runAsMain` does it for every program. */
export function installFaultPolicy(log?: Pick<Logger, 'error'>): void {
  if (installed) return;
  installed = true;
  const policy = faultPolicy(log);
  process.on('uncaughtException', (err) => policy.handle('uncaughtException', err));
  process.on('unhandledRejection', (reason) => policy.handle('unhandledRejection', reason));
}
