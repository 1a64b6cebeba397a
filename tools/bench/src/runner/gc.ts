import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/**
 * A full garbage collection to run before each timed run, so one run's garbage is not collected
 * inside the next one's timing. Node hides `gc` unless started with `--expose-gc`; turning the flag
 * on at run time and fetching `gc` from a fresh context gets it without restarting the process.
 */
export function garbageCollector(): (() => void) | undefined {
  const existing = (globalThis as { gc?: unknown }).gc;
  if (typeof existing === 'function') return existing as () => void;
  try {
    setFlagsFromString('--expose-gc');
    const gc: unknown = runInNewContext('gc');
    return typeof gc === 'function' ? (gc as () => void) : undefined;
  } catch {
    return undefined;
  }
}
