/**
 * This process's CPU time (user + system, every thread) in milliseconds. The property tests bound a
 * step's cost with it rather than with wall time: on a shared machine a process can wait for a core
 * longer than any bound without doing any work, while a stall (a superlinear step, a loop on a
 * hostile length) is work and shows here.
 */
export function cpuTimeMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}
