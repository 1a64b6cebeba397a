/**
 * One global-mode agent alone in this process, as on a node (the worst-case suite's
 * `global-agent-first-state` starts one per round): an `ApiSource` feeding a fresh `NodeView` from
 * a central core's global stream until its first node-local state holds EXPECTED Services, every
 * turn of this process measured by a `TurnProbe`. gRPC and the stream client are loaded before the
 * probe starts (a module's first load is the program's start, not its state's). Prints one line,
 * `AGENT_RESULT <json>` (`AgentRound`), on stdout, and exits.
 *
 * Usage: node --import tools/bench/scripts/register-ts.mjs agent-first-state.ts ADDRESS NODE EXPECTED
 */
import { loadavg } from 'node:os';
import { ApiSource, NodeView } from '@kpng/core/runtime';
import { nodeName, type NodeLocalState } from '@kpng/core';
import { RecordingLogger } from '@kpng/core/testing';
import { TurnProbe } from '../runner/turn-probe.js';
import { AGENT_RESULT_MARKER, type AgentRound } from './agent-round.js';

/** The goal: no event-loop stall over 100 ms. */
const STALL_GOAL_MS = 100;

async function main(argv: readonly string[]): Promise<number> {
  const [address, node, expectedText] = argv;
  const expected = Number(expectedText);
  if (!address || !node || !(expected > 0)) {
    process.stderr.write('usage: agent-first-state.ts ADDRESS NODE EXPECTED_SERVICES\n');
    return 2;
  }
  // What ApiSource imports on its first run: loaded now, outside the measured turns.
  await import('@kpng/core/stream');
  const agent = new NodeView({ nodeName: nodeName(node) });
  let state: NodeLocalState | undefined;
  let wake: (() => void) | undefined;
  agent.addLocalConsumer({
    publish: (s) => {
      state = s;
      wake?.();
    },
  });
  const stop = new AbortController();
  const log = new RecordingLogger();
  const probe = new TurnProbe({ overMs: STALL_GOAL_MS });
  await new Promise((r) => setImmediate(r));
  const started = performance.now();
  const probeStartUs = Number(process.hrtime.bigint() / 1000n);
  probe.start();
  let failed: unknown;
  const running = new ApiSource({ address, nodeName: node, log, watch: { logger: log } })
    .run(agent.model, stop.signal)
    .catch((e: unknown) => {
      failed = e;
      wake?.();
    });
  while (failed === undefined && (state?.services.length ?? -1) < expected) await new Promise<void>((r) => (wake = r));
  const firstStateMs = performance.now() - started;
  const figures = probe.stop();
  stop.abort();
  await running;
  agent.close();
  if (failed !== undefined) {
    process.stderr.write(`the agent failed: ${String(failed)}\n`);
    return 1;
  }
  const round: AgentRound = {
    ...figures,
    services: state?.services.length ?? 0,
    reconnects: log.records.filter((r) => r.msg === 'state stream lost; reconnecting').length,
    load1m: loadavg()[0]!,
    firstStateMs,
    probeStartUs,
  };
  process.stdout.write(`${AGENT_RESULT_MARKER}${JSON.stringify(round)}\n`);
  return 0;
}

// Exits at once: a channel or timer gRPC leaves behind must not hold a finished round.
process.exit(await main(process.argv.slice(2)));
