// Kernel e2e: the probe loop's resolution per datapath kind, with real packets. A lab "client pod"
// probes an echo server in a "target pod" through the package's own tcpDialer; the path is blocked
// (drop or reject on the lab node, or a TCP reset from the target itself, which is what a closed
// port looks like) and unblocked at a random moment through a long-lived `nft -i`, which bounds the
// commit to about a millisecond. The error is when the probe first succeeded minus when the
// unblocking was confirmed. Precise mode (`interval`, 5 ms) is printed (typically a few ms) and must
// not be held by an unanswered attempt (under 500 ms, half of upstream's 1 s probe timeout);
// upstream's cadence (`sequential`) is shown to lose up to the 1 s timeout where packets are dropped.
// The printed figures are the README's resolution table.
import { kernelE2e, Lab, sweepLeftovers } from '@kpng/lab';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectMatcher } from '../src/probe/matcher.js';
import { probeUntil, type ProbeCadence } from '../src/probe/probe-loop.js';
import { systemClock } from '../src/util/clock.js';
import { sleep } from './support/harness.js';
import { NetnsDialer } from './support/netns-dialer.js';
import { NftSession } from './support/nft-session.js';

const e2e = await kernelE2e('test-clients: probe resolution');

const PORT = 8080;
const TABLE = 'kpng-t-block';
/**
 * Precise mode's error (the first success after the unblock) is a printed figure; the 5 ms grid and the
 * attempts overlapping on a dropping datapath are pinned with a fake clock (src/probe/probe-loop.test.ts).
 * Asserted here only what tells the mechanism apart on the real datapath, tied to upstream's probe: an
 * attempt held until its 1 s timeout would be late by up to that second, so half of it is the bound.
 */
const HELD_ATTEMPT_BOUND_MS = 500;
/** Upstream's probe timeout: one unanswered attempt holds the next that long. */
const ATTEMPT_TIMEOUT_MS = 1_000;

type Kind = 'drop' | 'reject' | 'reset';
const KINDS: readonly Kind[] = ['drop', 'reject', 'reset'];

describe.skipIf(!e2e.run)('probe resolution per datapath kind, in the lab', () => {
  let lab: Lab;
  let dialer: NetnsDialer;
  let node: NftSession;
  let target: NftSession;
  const figures: string[] = [];

  /** Where the block lives and its rule: the node's forward hook, or the target's own input hook. */
  const place = (kind: Kind): { session: NftSession; hook: string; rule: string } => {
    if (kind === 'reset') return { session: target, hook: 'input', rule: `tcp dport ${PORT} reject with tcp reset` };
    const verdict = kind === 'drop' ? 'drop' : 'reject';
    return { session: node, hook: 'forward', rule: `ip saddr ${lab.pod('client').ipv4} tcp dport ${PORT} ${verdict}` };
  };
  const block = (kind: Kind, on: boolean) => {
    const { session, hook, rule } = place(kind);
    return session.apply(`flush chain inet ${TABLE} ${hook}\n${on ? `add rule inet ${TABLE} ${hook} ${rule}` : ''}`);
  };

  beforeAll(async () => {
    await sweepLeftovers();
    lab = await Lab.create({ pods: ['client', 'target'] });
    await lab.startEcho('target', [PORT]);
    node = NftSession.start(lab.node.namespace, TABLE);
    target = NftSession.start(lab.pod('target').namespace, TABLE);
    await node.apply(
      `add table inet ${TABLE}\nadd chain inet ${TABLE} forward { type filter hook forward priority 0 ; }`,
    );
    await target.apply(
      `add table inet ${TABLE}\nadd chain inet ${TABLE} input { type filter hook input priority 0 ; }`,
    );
    dialer = await NetnsDialer.start(lab.pod('client').namespace);
  });
  afterAll(async () => {
    if (figures.length > 0)
      console.info(`[resolution] error = first success - unblock confirmed (ms):\n${figures.join('\n')}`);
    await dialer?.close();
    await node?.close();
    await target?.close();
    await lab?.delete();
  });

  /** One sample: block, probe, unblock after a random 150-250 ms, and time the first success. */
  const measure = async (
    kind: Kind,
    cadence: ProbeCadence,
    intervalMs: number,
  ): Promise<{ errorMs: number; windowMs: number }> => {
    await block(kind, true);
    const outcome = probeUntil({
      dialer,
      clock: systemClock,
      host: lab.pod('target').ipv4,
      port: PORT,
      goal: 'reachable',
      matcher: connectMatcher,
      cadence,
      intervalMs,
      attemptTimeoutMs: 1_000,
      deadline: systemClock.now() + 10_000,
    });
    await sleep(150 + Math.random() * 100);
    const { sentAt, confirmedAt } = await block(kind, false);
    const result = await outcome;
    if (result.status !== 'done') throw new Error(`${kind}/${cadence}: not reached (${result.status})`);
    return { errorMs: result.at - confirmedAt, windowMs: confirmedAt - sentAt };
  };

  it.each(KINDS)(
    'precise (5 ms interval), %s: the first success is not held by an unanswered attempt',
    async (kind) => {
      const errors: number[] = [];
      for (let i = 0; i < 3; i++) {
        const { errorMs, windowMs } = await measure(kind, 'interval', 5);
        errors.push(errorMs);
        // The rule went away between sending the command and its confirmation: not before.
        expect(errorMs).toBeGreaterThanOrEqual(-windowMs - 1);
        expect(errorMs).toBeLessThanOrEqual(HELD_ATTEMPT_BOUND_MS);
      }
      figures.push(`  precise 5 ms  ${kind.padEnd(6)} ${errors.map((e) => e.toFixed(1)).join(', ')}`);
    },
  );

  it.each(KINDS)("upstream's cadence (one attempt after another), %s", async (kind) => {
    const errors: number[] = [];
    for (let i = 0; i < 2; i++) errors.push((await measure(kind, 'sequential', 10)).errorMs);
    figures.push(`  upstream      ${kind.padEnd(6)} ${errors.map((e) => e.toFixed(1)).join(', ')}`);
    // An unanswered attempt holds the next one back until its 1 s timeout: with drop, and with an
    // ICMP reject once the node's ICMP rate limit (net.ipv4.icmp_ratelimit) swallows the errors.
    // A TCP reset answers every attempt at once.
    for (const e of errors)
      expect(e).toBeLessThanOrEqual(
        kind === 'reset' ? HELD_ATTEMPT_BOUND_MS : ATTEMPT_TIMEOUT_MS + HELD_ATTEMPT_BOUND_MS,
      );
  });
});
