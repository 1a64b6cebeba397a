/**
 * Hostile frames on either stream: whatever bytes a peer sends, decoding returns a state or throws
 * the codec's own error (a KpngError), the checks every door shares then accept or refuse each
 * object without throwing, and no frame stalls the event loop. The local client's decode over
 * turns (`decodeLocalStateInTurns`) gives the same state.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { KpngError } from '../../util/errors.js';
import {
  localStateRefusals,
  nodeProblems,
  serviceCIDRProblems,
  serviceProblems,
  sliceProblems,
} from '../../watch/convert/validate.js';
import { everything } from '../testdata/harness.js';
import { cpuTimeMs } from '../../../test/support/cpu-clock.js';
import { aRichGlobalSnapshot, aRichLocalState } from '../testing-fixtures.js';
import { decodeResponse } from './envelope.js';
import { decodeGlobalState, decodeGlobalStateInTurns, GlobalDecodeCache } from './global-decode.js';
import { encodeGlobalStateResponse } from './global-encode.js';
import { DecodedItemCache } from './item-cache.js';
import { decodeLocalState, decodeLocalStateInTurns } from './local-decode.js';
import { encodeLocalStateResponse } from './local-encode.js';

const delivery = { instanceId: 'core', revision: 7, changes: everything, full: true };
const globalFrame = encodeGlobalStateResponse({ ...delivery, state: aRichGlobalSnapshot() });
const localFrame = encodeLocalStateResponse({ ...delivery, state: aRichLocalState() });

/** A valid frame with a few bytes changed, cut short, or grown; or random bytes. */
function hostileFrames(valid: Buffer): fc.Arbitrary<Buffer> {
  const mutated = fc
    .tuple(
      fc.array(fc.tuple(fc.nat(valid.length - 1), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 8 }),
      fc.option(fc.nat(valid.length), { nil: undefined }),
      fc.uint8Array({ maxLength: 16 }),
    )
    .map(([flips, cut, tail]) => {
      const copy = Buffer.from(valid);
      for (const [at, value] of flips) copy[at] = value;
      return Buffer.concat([cut === undefined ? copy : copy.subarray(0, cut), tail]);
    });
  const random = fc.uint8Array({ maxLength: 512 }).map((bytes) => Buffer.from(bytes));
  return fc.oneof({ weight: 4, arbitrary: mutated }, { weight: 1, arbitrary: random });
}

/**
 * Decoding one small frame takes microseconds; 100 ms leaves a thousandfold margin, so only a
 * stalling step (a loop on a hostile length) fails it. In CPU time (test/support/cpu-clock.ts): wall time failed
 * at load ~30 on a 2-core machine (101-129 ms) with no stall at all.
 */
const STALL_MS = 100;

function decodesOrRefuses(frame: Buffer, decode: (buf: Buffer, start: number, end: number) => void): boolean {
  const start = cpuTimeMs();
  try {
    const res = decodeResponse(frame);
    if (res.type === 'state') decode(frame, res.start, res.end);
    return true;
  } catch (e) {
    expect(e).toBeInstanceOf(KpngError);
    return false;
  } finally {
    expect(cpuTimeMs() - start).toBeLessThan(STALL_MS);
  }
}

/** Where the frame's State is, when it is a readable response with one. */
function stateRange(frame: Buffer): { start: number; end: number } | undefined {
  try {
    const res = decodeResponse(frame);
    return res.type === 'state' ? res : undefined;
  } catch {
    return undefined;
  }
}

describe('hostile frames', () => {
  it('global stream: decoded and checked object by object, or refused with the codec error; over turns the same', async () => {
    const outcomes = { decoded: 0, refused: 0, objectsRefused: 0 };
    const cache = new GlobalDecodeCache();
    const turnsCache = new GlobalDecodeCache();
    await fc.assert(
      fc.asyncProperty(hostileFrames(globalFrame), async (frame) => {
        let plain: unknown;
        const ok = decodesOrRefuses(frame, (buf, start, end) => {
          const { state } = decodeGlobalState(buf, start, end, cache);
          plain = state;
          const problems = [
            ...state.services.map(serviceProblems),
            ...state.endpointSlices.map(sliceProblems),
            ...state.nodes.map(nodeProblems),
            ...state.serviceCIDRs.map(serviceCIDRProblems),
          ];
          outcomes.objectsRefused += problems.filter((p) => p.length > 0).length;
        });
        outcomes[ok ? 'decoded' : 'refused']++;
        // What the client runs: the same outcome, decoded over turns with its own cache.
        const res = stateRange(frame);
        if (res) {
          const inTurns = decodeGlobalStateInTurns(frame, res.start, res.end, turnsCache);
          if (ok) expect((await inTurns).state).toEqual(plain);
          else await expect(inTurns).rejects.toBeInstanceOf(KpngError);
        }
      }),
      { numRuns: 1000 },
    );
    // Both outcomes are reached (a generator that only ever fails to decode proves nothing).
    expect(outcomes.decoded).toBeGreaterThan(0);
    expect(outcomes.refused).toBeGreaterThan(0);
    expect(outcomes.objectsRefused).toBeGreaterThan(0);
  });

  it('local stream: decoded and checked, or refused with the codec error; over turns the same', async () => {
    const outcomes = { decoded: 0, refused: 0, statesRefused: 0 };
    type Service = ReturnType<typeof aRichLocalState>['services'][number];
    const cache = new DecodedItemCache<Service>();
    const turnsCache = new DecodedItemCache<Service>();
    await fc.assert(
      fc.asyncProperty(hostileFrames(localFrame), async (frame) => {
        let plain: unknown;
        const ok = decodesOrRefuses(frame, (buf, start, end) => {
          const { state } = decodeLocalState(buf, start, end, cache);
          plain = state;
          if (localStateRefusals(state).length > 0) outcomes.statesRefused++;
        });
        outcomes[ok ? 'decoded' : 'refused']++;
        // What the client runs: the same outcome, decoded over turns with its own cache.
        const res = stateRange(frame);
        if (res) {
          const inTurns = decodeLocalStateInTurns(frame, res.start, res.end, turnsCache, () => undefined);
          if (ok) expect((await inTurns).state).toEqual(plain);
          else await expect(inTurns).rejects.toBeInstanceOf(KpngError);
        }
      }),
      { numRuns: 1000 },
    );
    expect(outcomes.decoded).toBeGreaterThan(0);
    expect(outcomes.refused).toBeGreaterThan(0);
    expect(outcomes.statesRefused).toBeGreaterThan(0);
  });
});
