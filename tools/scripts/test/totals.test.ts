import { describe, expect, it } from 'vitest';
import { failureLines, fileCounts, sumReports, totalLine, withExitStatus } from '../totals.mjs';

const t = (status: string) => ({ status });

describe('fileCounts', () => {
  it('counts a passed file as vitest does: skipped tests stay skipped', () => {
    expect(fileCounts({ status: 'passed', assertionResults: [t('passed'), t('skipped'), t('todo')] })).toEqual({
      passed: 1,
      failed: 0,
      skipped: 2,
    });
  });

  it('counts the tests of a file whose beforeAll threw (reported skipped) as failed', () => {
    expect(fileCounts({ status: 'failed', assertionResults: [t('skipped'), t('skipped'), t('pending')] })).toEqual({
      passed: 0,
      failed: 3,
      skipped: 0,
    });
  });

  it('keeps the passed tests of a failed file and fails the rest', () => {
    expect(fileCounts({ status: 'failed', assertionResults: [t('passed'), t('failed'), t('skipped')] })).toEqual({
      passed: 1,
      failed: 2,
      skipped: 0,
    });
  });

  it('counts a failed file with no failed test (import error, throwing afterAll) as one failed', () => {
    expect(fileCounts({ status: 'failed', assertionResults: [] })).toEqual({ passed: 0, failed: 1, skipped: 0 });
    expect(fileCounts({ status: 'failed' })).toEqual({ passed: 0, failed: 1, skipped: 0 });
    expect(fileCounts({ status: 'failed', assertionResults: [t('passed')] })).toEqual({
      passed: 1,
      failed: 1,
      skipped: 0,
    });
  });
});

describe('sumReports', () => {
  const reports = [
    {
      testResults: [
        { name: '/a.test.ts', status: 'passed', assertionResults: [t('passed'), t('skipped')] },
        { name: '/b.test.ts', status: 'failed', assertionResults: [t('skipped'), t('skipped')] },
      ],
    },
    { testResults: [{ name: '/c.test.ts', status: 'failed', assertionResults: [] }] },
  ];

  it('sums files across projects and names the failed files', () => {
    expect(sumReports(reports, { requireAll: true })).toEqual({
      passed: 1,
      failed: 3,
      skipped: 1,
      failedFiles: ['/b.test.ts', '/c.test.ts'],
      failures: ['/b.test.ts: failed', '/c.test.ts: failed'],
    });
  });

  it('counts a project without a report as failed only when every project must report', () => {
    expect(sumReports([], { missing: ['/tools/x'], requireAll: true })).toMatchObject({
      failed: 1,
      failedFiles: ['/tools/x (no report)'],
    });
    expect(sumReports([], { missing: ['/tools/x'], requireAll: false })).toMatchObject({ failed: 0, failedFiles: [] });
  });
});

describe('failureLines', () => {
  it("names each failed test with its error's first line, and a file that failed with none by its own message", () => {
    const failed = {
      status: 'failed',
      fullName: 'swap > keeps connections',
      failureMessages: ['\nAssertionError: expected 3 to be 0\n    at x.ts:1:1'],
    };
    expect(
      failureLines({ name: '/a.test.ts', status: 'failed', assertionResults: [{ status: 'passed' }, failed] }),
    ).toEqual(['/a.test.ts > swap > keeps connections: AssertionError: expected 3 to be 0']);
    expect(failureLines({ name: '/b.test.ts', status: 'failed', message: 'Error: hook timed out\nstack' })).toEqual([
      '/b.test.ts: Error: hook timed out',
    ]);
    expect(failureLines({ name: '/c.test.ts', status: 'passed', assertionResults: [{ status: 'passed' }] })).toEqual(
      [],
    );
  });
});

describe('withExitStatus and totalLine', () => {
  it('shows a non-zero exit with nothing counted as one failure, and leaves other totals alone', () => {
    const zero = { passed: 5, failed: 0, skipped: 0 };
    expect(totalLine(withExitStatus(zero, 1))).toBe('5 passed, 1 failed, 0 skipped');
    expect(totalLine(withExitStatus(zero, null))).toBe('5 passed, 1 failed, 0 skipped');
    expect(totalLine(withExitStatus(zero, 0))).toBe('5 passed, 0 failed, 0 skipped');
    expect(totalLine(withExitStatus({ passed: 1, failed: 4, skipped: 2 }, 1))).toBe('1 passed, 4 failed, 2 skipped');
  });
});
