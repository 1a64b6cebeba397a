import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { guestExpect } from './expect.js';
import { GUEST_REPORT_ENV, runGuestSuite, type GuestSuite } from './suite.js';

describe('runGuestSuite (the VM guest script runner)', () => {
  let dir: string;
  const report = () =>
    (
      JSON.parse(readFileSync(join(dir, 'report.json'), 'utf8')) as {
        tests: { fullName: string; status: string; failureMessages: string[] }[];
      }
    ).tests;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'kpng-guest-'));
    vi.stubEnv(GUEST_REPORT_ENV, join(dir, 'report.json'));
    vi.stubEnv('KPNG_LAB_TIMEOUT_SCALE', '1');
    vi.spyOn(console, 'log').mockImplementation(() => undefined);
  });
  afterEach(() => {
    vi.unstubAllEnvs();
    vi.restoreAllMocks();
    rmSync(dir, { recursive: true, force: true });
  });

  it('runs the cases in order between the hooks, reports each by full name, skips what it is told to', async () => {
    const seen: string[] = [];
    const suite: GuestSuite = {
      title: 'lb',
      beforeAll: () => void seen.push('beforeAll'),
      afterAll: () => void seen.push('afterAll'),
      cases: [
        { name: 'one', run: () => void seen.push('one') },
        { name: 'big one', run: () => void seen.push('big one') },
        { name: 'two', run: async () => guestExpect({ a: 1, b: [2] }).toMatchObject({ b: [3] }) },
      ],
    };
    const code = await runGuestSuite(suite, { file: 'test/x.test.ts', skip: (n) => n.includes('big') });
    expect(code).toBe(1);
    expect(seen).toEqual(['beforeAll', 'one', 'afterAll']);
    expect(report().map((t) => [t.fullName, t.status])).toEqual([
      ['lb one', 'passed'],
      ['lb big one', 'skipped'],
      ['lb two', 'failed'],
    ]);
    expect(report()[2]!.failureMessages[0]).toMatch(/AssertionError/);
  });

  it('a failed beforeAll fails every case without running it; a case past its budget fails', async () => {
    const ran: string[] = [];
    const failed = await runGuestSuite(
      {
        title: 's',
        beforeAll: () => Promise.reject(new Error('no lab')),
        cases: [{ name: 'a', run: () => void ran.push('a') }],
      },
      { file: 'f' },
    );
    expect(failed).toBe(1);
    expect(ran).toEqual([]);
    expect(report()[0]!.failureMessages[0]).toMatch(/no lab/);
    const slow = await runGuestSuite(
      { title: 's', cases: [{ name: 'slow', run: () => new Promise<void>(() => undefined) }] },
      { file: 'f', caseTimeoutMs: 20 },
    );
    expect(slow).toBe(1);
    expect(report()[0]!.failureMessages[0]).toMatch(/slow timed out after 20 ms/);
  });

  it("guestExpect has vitest's matchers, asymmetric ones too", () => {
    guestExpect([3, 1]).toEqual(guestExpect.arrayContaining([1]));
    guestExpect({ ok: true, peer: 'x' }).toMatchObject({ ok: true });
    guestExpect(() => guestExpect(1, 'the message').toBe(2)).toThrow(/the message/);
    guestExpect(new Set(['a'])).toEqual(new Set(['a']));
    guestExpect([1, 2]).toHaveLength(2);
  });
});
