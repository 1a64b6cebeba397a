/** Test harness for stream e2e tests: temp socket dirs, servers and watches that are always cleaned up. */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ServiceKey } from '../../model/types.js';
import type { StateChanges } from '../../nodeview/types.js';
import type { StreamServer } from '../server/stream-server.js';

export interface Harness {
  /** A fresh temp dir (removed at cleanup). */
  dir(): Promise<string>;
  server(s: StreamServer): StreamServer;
  /** An AbortSignal aborted at cleanup; the watch promise is awaited there. */
  watch(start: (signal: AbortSignal) => Promise<void>): AbortController;
  cleanup(): Promise<void>;
}

export function harness(): Harness {
  const dirs: string[] = [];
  const servers: StreamServer[] = [];
  const watches: { stop: AbortController; done: Promise<void> }[] = [];
  return {
    async dir() {
      const d = await mkdtemp(join(tmpdir(), 'kpng-stream-'));
      dirs.push(d);
      return d;
    },
    server(s) {
      servers.push(s);
      return s;
    },
    watch(start) {
      const stop = new AbortController();
      watches.push({ stop, done: start(stop.signal) });
      return stop;
    },
    async cleanup() {
      const running = watches.splice(0);
      for (const w of running) w.stop.abort();
      await Promise.all(servers.splice(0).map((s) => s.close()));
      await Promise.all(running.map((w) => w.done));
      await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
    },
  };
}

export function changed(...keys: string[]): StateChanges {
  return { updatedServices: new Set(keys as ServiceKey[]), triggerTimes: new Map(), nodeChanged: false };
}

export const everything: StateChanges = { triggerTimes: new Map(), nodeChanged: true };

/** A promise plus its resolver, to hold a handler until the test releases it. */
export function gate(): { promise: Promise<void>; open(): void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}
