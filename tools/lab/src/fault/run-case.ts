// One fault case under traffic: a pod opens a new connection to the ClusterIP every 20 ms while
// the fault happens; the figure line says how many failed and how long until traffic came back.
import { probeSteadily, type Lab, type SteadyResult } from '../netns/index.js';
import { CLUSTER_IP, SERVICE_PORT } from './objects.js';

export interface FaultFigure {
  readonly attempts: number;
  readonly failed: number;
  /** From the fault until the last failed connection started (0: none failed), in ms. */
  readonly brokenMs: number;
  readonly traffic: SteadyResult;
}

/** Runs `fault` `faultAfterMs` into `durationMs` of steady traffic from pod-a to the ClusterIP. */
export async function underTraffic(
  lab: Lab,
  durationMs: number,
  faultAfterMs: number,
  fault: () => Promise<void>,
): Promise<FaultFigure & { readonly faultAt: number }> {
  const traffic = probeSteadily(lab.pod('pod-a').namespace, { ip: CLUSTER_IP, port: SERVICE_PORT, durationMs });
  await new Promise((r) => setTimeout(r, faultAfterMs));
  const faultAt = Date.now();
  await fault();
  const result = await traffic;
  const last = result.failures.at(-1)?.at;
  return {
    faultAt,
    attempts: result.attempts,
    failed: result.failures.length,
    brokenMs: last === undefined ? 0 : Math.max(0, last - faultAt),
    traffic: result,
  };
}

/** The suite's figure line (collected in TESTING.md). */
export function printFigure(program: string, name: string, figures: Record<string, string | number>): void {
  const text = Object.entries(figures)
    .map(([k, v]) => `${k}=${v}`)
    .join(' ');
  console.log(`FAULT-FIGURE ${program} | ${name} | ${text}`);
}
