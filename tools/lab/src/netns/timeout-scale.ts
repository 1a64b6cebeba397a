/**
 * Multiplies the lab's time budgets (probe attempts, echo server start) by `KPNG_LAB_TIMEOUT_SCALE`
 * (default 1). The lab's VM sets it: under emulation on a loaded host a first packet (neighbour
 * discovery, conntrack, process wake-ups) or a Node start can take several times longer. Only a
 * budget: tests assert outcomes, never durations.
 */
export const TIMEOUT_SCALE_ENV = 'KPNG_LAB_TIMEOUT_SCALE';

export function scaledTimeout(ms: number, env: NodeJS.ProcessEnv = process.env): number {
  const scale = Number(env[TIMEOUT_SCALE_ENV] ?? 1);
  return ms * (Number.isFinite(scale) && scale >= 1 ? scale : 1);
}
