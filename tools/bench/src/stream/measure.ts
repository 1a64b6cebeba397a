/**
 * `measureStream`: the PERFORMANCE.md figure "full-state stream of s10k over the unix socket,
 * serialize + send + decode", for tools/bench. Server and client run in this process (one event
 * loop, so the stages cannot overlap: a conservative figure). Each timing runs from `publish` to the
 * client's handler receiving the decoded state. A JSON round trip of the same state (stringify +
 * parse, no I/O) is measured in the same run as the reference PERFORMANCE.md asks for.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Logger, NodeLocalState } from '@kpng/core';
import { serveLocalState, StateHub, watchLocalState } from '@kpng/core/stream';
import { syntheticLocalState, withOneServiceChanged, type SyntheticShape } from '@kpng/core/testing';

export interface StreamMeasureOptions {
  /** Default 10,000 (`s10k`). */
  readonly services?: number;
  /** Default 10. */
  readonly endpointsPerService?: number;
  /** Default 5; the median is what to report. */
  readonly runs?: number;
  /** Also time the JSON reference (default true). */
  readonly jsonReference?: boolean;
  readonly logger?: Logger;
}

export interface StreamMeasurement {
  readonly services: number;
  readonly endpoints: number;
  /** Size of one encoded state message. */
  readonly bytes: number;
  /** New objects, new client: nothing cached on either side. */
  readonly coldMs: readonly number[];
  /**
   * CPU time (user + system, all threads of this process) of each cold delivery: close to what the
   * wall time would be on an idle machine, since server and client share one event loop here.
   */
  readonly coldCpuMs: readonly number[];
  /** One Service changed since the previous state: encode and decode caches hit for the rest. */
  readonly warmMs: readonly number[];
  /** JSON.stringify + JSON.parse of the same state, in memory. */
  readonly jsonReferenceMs: readonly number[];
}

const silent: Logger = { info() {}, warn() {}, error() {}, debug() {}, with: () => silent };

export async function measureStream(options: StreamMeasureOptions = {}): Promise<StreamMeasurement> {
  const shape: SyntheticShape = {
    services: options.services ?? 10_000,
    endpointsPerService: options.endpointsPerService ?? 10,
  };
  const logger = options.logger ?? silent;
  const dir = await mkdtemp(join(tmpdir(), 'kpng-measure-'));
  const result = {
    coldMs: [] as number[],
    coldCpuMs: [] as number[],
    warmMs: [] as number[],
    jsonReferenceMs: [] as number[],
    bytes: 0,
  };
  try {
    for (let run = 0; run < (options.runs ?? 5); run++) {
      const state = syntheticLocalState(shape);
      const hub = new StateHub<NodeLocalState>();
      const server = await serveLocalState({
        hub,
        address: `unix://${join(dir, `run-${run}.sock`)}`,
        logger,
        observer: {
          clientConnected() {},
          clientDisconnected() {},
          stateSent: (_api, info) => void (result.bytes = info.bytes),
        },
      });
      const stop = new AbortController();
      let arrived: ((at: number) => void) | undefined;
      const watch = watchLocalState(server.address, () => arrived?.(performance.now()), {
        signal: stop.signal,
        logger,
      });
      const deliver = (s: NodeLocalState) =>
        new Promise<{ wall: number; cpu: number }>((resolve) => {
          const cpu0 = process.cpuUsage();
          const t0 = performance.now();
          arrived = (at) => {
            const cpu = process.cpuUsage(cpu0);
            resolve({ wall: at - t0, cpu: (cpu.user + cpu.system) / 1000 });
          };
          hub.publish(s, { triggerTimes: new Map(), nodeChanged: false });
        });
      try {
        // The client connects and waits with credit before anything is published.
        await waitUntilWaiting(hub);
        const cold = await deliver(state);
        result.coldMs.push(cold.wall);
        result.coldCpuMs.push(cold.cpu);
        result.warmMs.push((await deliver(withOneServiceChanged(state, run % shape.services, shape, run + 1))).wall);
      } finally {
        stop.abort();
        await server.close();
        await watch;
      }
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  // After the stream runs: the reference's garbage (80 MB of JSON at s10k) must not land in their timings.
  const state = syntheticLocalState(shape);
  for (let run = 0; options.jsonReference !== false && run < (options.runs ?? 5); run++) {
    const t0 = performance.now();
    JSON.parse(JSON.stringify(state));
    result.jsonReferenceMs.push(performance.now() - t0);
  }
  return { services: shape.services, endpoints: shape.services * shape.endpointsPerService, ...result };
}

/** Until the client's first request is parked in the hub (bounded: 10 s). */
async function waitUntilWaiting(hub: StateHub<NodeLocalState>): Promise<void> {
  for (let i = 0; i < 1000 && hub.waiting === 0; i++) await new Promise((resolve) => setTimeout(resolve, 10));
  if (hub.waiting === 0) throw new Error('the measuring client did not connect within 10 s');
}
