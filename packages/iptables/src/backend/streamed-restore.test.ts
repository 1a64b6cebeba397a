import { allFeatures, fullSyncRequest, nodeState, RecordingLogger } from '@kpng/core/testing';
import type { LocalService, NodeLocalState } from '@kpng/core';
import { describe, expect, it } from 'vitest';
import type { Execer, ExecResult } from '@kpng/kit';
import { FakeIptables } from '../iptables/fake/fake-iptables.js';
import { IptablesBackend } from './iptables-backend.js';

/**
 * The fake iptables behind an execer that starts processes before their input, as the real one
 * does: what each started process was sent, whether it was killed, and the order of events.
 */
class StreamingFake implements Execer {
  readonly fake = new FakeIptables({ flavour: 'legacy' });
  readonly started: { argv: readonly string[]; chunks: string[]; killed: boolean; ended: boolean }[] = [];
  readonly events: string[] = [];

  run(argv: readonly string[], stdin: string, signal?: AbortSignal): Promise<ExecResult> {
    return this.fake.run(argv, stdin, signal);
  }

  /** As the kit's `processExecer`: started at the call, its input only once complete; killed when the input throws. */
  async runStream(argv: readonly string[], stdin: AsyncIterable<string>, signal?: AbortSignal): Promise<ExecResult> {
    const entry = { argv, chunks: [] as string[], killed: false, ended: false };
    this.started.push(entry);
    const name = argv.find((a) => a.endsWith('-restore')) ?? argv[0];
    this.events.push(`start ${name}`);
    const pieces: string[] = [];
    try {
      for await (const piece of stdin) pieces.push(piece);
    } catch (e) {
      entry.killed = true;
      this.events.push(`kill ${name}`);
      throw e;
    }
    entry.chunks.push(...pieces);
    entry.ended = true;
    this.events.push(`end ${name}`);
    return this.fake.run(argv, entry.chunks.join(''), signal);
  }
}

/** A kill reaches a started process through its input, a few microtasks later: let it arrive. */
const settled = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

function backendOver(execer: StreamingFake): IptablesBackend {
  return new IptablesBackend({
    execer,
    conntrack: false,
    log: new RecordingLogger(),
    families: ['IPv4', 'IPv6'],
    flavour: 'legacy',
  });
}

/** The state with one Service whose rendering throws (a bug in rendering, or a broken object). */
function throwingState(state: NodeLocalState): NodeLocalState {
  const [first, ...rest] = state.services;
  // The name (read by rendering only: core's render guard checks the values, not the name).
  const broken = Object.create(first as LocalService, {
    name: {
      get() {
        throw new Error('render bug');
      },
    },
  }) as LocalService;
  return { ...state, services: [...rest, broken] };
}

describe('restores started before their input is rendered', () => {
  it("a full sync starts every family's restore before rendering, then sends each its whole input", async () => {
    const execer = new StreamingFake();
    const backend = backendOver(execer);
    await backend.setup();
    await backend.sync(fullSyncRequest(nodeState(allFeatures())));
    const restores = execer.started.filter((s) => s.argv.some((a) => a.endsWith('-restore')));
    expect(restores.map((r) => r.argv.find((a) => a.endsWith('-restore')))).toEqual([
      'iptables-legacy-restore',
      'ip6tables-legacy-restore',
    ]);
    expect(execer.events.slice(0, 2)).toEqual(['start iptables-legacy-restore', 'start ip6tables-legacy-restore']);
    expect(restores.every((r) => r.ended && !r.killed)).toBe(true);
    // What each process was sent is what the kernel (the fake) applied.
    expect(restores.map((r) => r.chunks.join(''))).toEqual(execer.fake.restores.map((r) => r.input));
    expect(execer.fake.chain('IPv4', 'nat', 'PREROUTING')?.length).toBe(1);
  });

  it('an error while rendering kills every started restore before it is sent a line: the previous rules stay', async () => {
    const execer = new StreamingFake();
    const backend = backendOver(execer);
    await backend.setup();
    const state = nodeState(allFeatures());
    await backend.sync(fullSyncRequest(state));
    const before = { v4: execer.fake.save('IPv4'), v6: execer.fake.save('IPv6') };
    const applied = execer.fake.restores.length;
    execer.started.length = 0;

    await expect(backend.sync(fullSyncRequest(throwingState(state), 3))).rejects.toThrow(/render bug/);
    await settled();

    const restores = execer.started.filter((s) => s.argv.some((a) => a.endsWith('-restore')));
    expect(restores).toHaveLength(2);
    for (const restore of restores) {
      expect(restore.killed).toBe(true);
      expect(restore.ended).toBe(false);
      expect(restore.chunks).toEqual([]); // no COMMIT, no `*table` (nor the xtables lock it takes)
    }
    expect(execer.fake.restores).toHaveLength(applied);
    expect({ v4: execer.fake.save('IPv4'), v6: execer.fake.save('IPv6') }).toEqual(before);

    // The next sync is a full one again and applies.
    await backend.sync(fullSyncRequest(state, 4));
    expect(execer.fake.restores).toHaveLength(applied + 2);
  });

  it("a failed first family kills the second family's restore, which was never sent its input", async () => {
    const execer = new StreamingFake();
    const backend = backendOver(execer);
    await backend.setup();
    execer.fake.failNextRestore('iptables-restore: line 3 failed', 'IPv4');
    await expect(backend.sync(fullSyncRequest(nodeState(allFeatures())))).rejects.toThrow(/IPv4/);
    await settled();
    const v6 = execer.started.find((s) => s.argv.some((a) => a === 'ip6tables-legacy-restore'));
    expect(v6).toMatchObject({ killed: true, ended: false, chunks: [] });
    expect(execer.fake.chainNames('IPv6', 'nat')).not.toContain('KUBE-SERVICES');
  });
});
