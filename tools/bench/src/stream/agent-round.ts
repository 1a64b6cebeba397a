import type { TurnProbeFigures } from '../runner/turn-probe.js';

/** The line `agent-first-state.ts` prints its result on: this marker, then `AgentRound` as JSON. */
export const AGENT_RESULT_MARKER = 'AGENT_RESULT ';

/** One agent's first state, measured in its own process (`agent-first-state.ts`). */
export interface AgentRound extends TurnProbeFigures {
  readonly services: number;
  /** The stream lost and opened again before the first state. */
  readonly reconnects: number;
  readonly load1m: number;
  /** Wall ms from starting the source to the first complete state. */
  readonly firstStateMs: number;
  /**
   * `process.hrtime` at the probe's start, in µs: the clock of a `--cpu-prof` profile's timestamps,
   * so a turn's `atMs` is found in it at `probeStartUs + atMs * 1000`.
   */
  readonly probeStartUs: number;
}
