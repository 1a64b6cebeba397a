// A full sync sends its nat table to the already-started iptables-restore while it renders, its
// COMMIT once everything is rendered. With the real iptables-restore (legacy and nft, both
// families) inside a namespace this file creates: a rendering error after the restore was sent
// the head and rules of the nat table kills it, and the kernel keeps exactly what it had.
import { nodeState } from '@kpng/core/testing';
import { createNamespace, kernelE2e, sweepLeftovers, type NetworkNamespace } from '@kpng/lab';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IptablesBackend } from '../src/backend/iptables-backend.js';
import { command } from '../src/iptables/commands.js';
import { processExecer, type Execer, type StartedProcess } from '../src/iptables/exec.js';
import { fuzzedServices } from '../src/testing/fuzz.js';
import { throwingState } from '../src/testing/throwing-state.js';
import { E2E_CONFIG, FLAVOURS, fullSync } from './e2e-helpers.js';

const e2e = await kernelE2e('iptables backend: streamed restore');

interface Sent {
  readonly argv: readonly string[];
  readonly chunks: string[];
  killed: boolean;
}

/** The real processes, recording what each restore was sent and whether it was killed. */
function recordingExecer(sent: Sent[]): Execer {
  return {
    run: (argv, stdin, signal) => processExecer.run(argv, stdin, signal),
    start(argv, signal): StartedProcess {
      const started = (processExecer.start as NonNullable<Execer['start']>)(argv, signal);
      if (!argv.some((a) => a.endsWith('-restore'))) return started;
      const entry: Sent = { argv, chunks: [], killed: false };
      sent.push(entry);
      return {
        write: (chunk) => {
          entry.chunks.push(chunk);
          started.write(chunk);
        },
        end: () => started.end(),
        kill: () => {
          entry.killed = true;
          started.kill();
        },
      };
    },
  };
}

describe.skipIf(!e2e.run)('a full sync streamed to the real iptables-restore', () => {
  let ns: NetworkNamespace;
  beforeAll(async () => {
    await sweepLeftovers();
    ns = await createNamespace('ipt-stream');
  });
  afterAll(async () => {
    await ns?.delete();
  });

  /** Every table of both families, without the dump's dated comments. */
  const saved = async (flavour: (typeof FLAVOURS)[number]): Promise<string[]> =>
    Promise.all(
      (['IPv4', 'IPv6'] as const).map(async (family) =>
        (await ns.exec([command(family, flavour, 'save')])).stdout
          .split('\n')
          .filter((line) => !line.startsWith('#'))
          .join('\n'),
      ),
    );

  it.each(FLAVOURS)('iptables-%s: a rendering error after rules were sent applies nothing', async (flavour) => {
    const sent: Sent[] = [];
    const backend = new IptablesBackend({
      ...E2E_CONFIG,
      flavour,
      netns: ns.name,
      execer: recordingExecer(sent),
      conntrack: false,
    });
    // Enough Services that the nat table goes out in several chunks before the last one renders.
    const state = nodeState(fuzzedServices(21, 60));
    await backend.sync(fullSync(state, 1));
    const before = await saved(flavour);
    expect(before[0]).toMatch(/-A KUBE-SERVICES .* -j KUBE-SVC-/);
    sent.length = 0;

    await expect(backend.sync(fullSync(throwingState(state, 'families'), 2))).rejects.toThrow(/render bug/);

    const [v4, v6] = sent;
    const v4Input = v4?.chunks.join('') ?? '';
    expect(v4?.killed).toBe(true);
    expect(v4?.chunks.length).toBeGreaterThan(2);
    expect(v4Input).toMatch(/^\*nat\n[^]*\n-A KUBE-SVC-[^]*\n-A KUBE-SEP-/);
    expect(v4Input).not.toMatch(/^COMMIT$/m);
    expect(v6).toMatchObject({ killed: true, chunks: [] });
    expect(await saved(flavour)).toEqual(before);

    // The killed restore left no lock behind: the next (full) sync applies.
    await backend.sync(fullSync(state, 3));
    expect(await saved(flavour)).toEqual(before);
    await backend.cleanup();
  });
});
