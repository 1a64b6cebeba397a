// A deadline for the lab's client scripts that a starved process cannot misread. On a starved loop
// (a loaded host, one emulated CPU in the VM) timers run before pending socket events are read: a
// handshake completed, a reset or an answer that arrived while the process waited would be seen
// only after the timer had already called it a timeout. So the verdict waits for a poll phase
// (`setImmediate` runs after one) that brings nothing new: `progress()` marks that something came.
// Plain JavaScript, imported by the scripts beside it (run with `node` alone, no build).

/**
 * Calls `onExpired` once `ms` have passed and a loop turn since then brought no progress.
 * @param {number} ms
 * @param {() => void} onExpired
 */
export function quietDeadline(ms, onExpired) {
  let progressed = false;
  let cancelled = false;
  const verdict = () => {
    if (cancelled) return;
    if (!progressed) {
      cancelled = true;
      onExpired();
      return;
    }
    progressed = false;
    setImmediate(verdict);
  };
  const timer = setTimeout(() => {
    progressed = false;
    setImmediate(verdict);
  }, ms);
  return {
    /** Something arrived: the verdict waits another quiet turn. */
    progress: () => {
      progressed = true;
    },
    cancel: () => {
      cancelled = true;
      clearTimeout(timer);
    },
  };
}
