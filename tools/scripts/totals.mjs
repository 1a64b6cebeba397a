// @ts-check
// The workspace total of `npm test` (test.mjs), from the JSON reports each project's vitest writes.
// Nothing may hide in it: a test file that failed counts every test of it that did not pass as
// failed (vitest reports the tests of a file whose `beforeAll` threw as skipped), and a file that
// failed with no failed test at all (an import error, a throwing `afterAll`) counts as one failed.

/**
 * @typedef {{ status?: string, assertionResults?: { status?: string }[] }} FileResult
 * @typedef {{ testResults?: FileResult[] }} Report
 * @typedef {{ passed: number, failed: number, skipped: number }} Counts
 */

/**
 * The counts of one test file.
 * @param {FileResult} file
 * @returns {Counts}
 */
export function fileCounts(file) {
  const tests = file.assertionResults ?? [];
  const passed = tests.filter((t) => t.status === 'passed').length;
  let failed = tests.filter((t) => t.status === 'failed').length;
  let skipped = tests.length - passed - failed; // skipped, pending, todo, disabled
  if (file.status === 'failed') {
    failed += skipped;
    skipped = 0;
    if (failed === 0) failed = 1;
  }
  return { passed, failed, skipped };
}

/**
 * The counts of one project's report, and the names of its files that failed.
 * @param {Report} report
 * @returns {Counts & { failedFiles: string[] }}
 */
export function reportCounts(report) {
  const total = { passed: 0, failed: 0, skipped: 0, failedFiles: /** @type {string[]} */ ([]) };
  for (const file of report.testResults ?? []) {
    const c = fileCounts(file);
    total.passed += c.passed;
    total.failed += c.failed;
    total.skipped += c.skipped;
    if (file.status === 'failed') total.failedFiles.push(/** @type {{ name?: string }} */ (file).name ?? '?');
  }
  return total;
}

/**
 * Sums projects' reports. A project listed in `missing` (it wrote no report: its vitest never ran or
 * crashed) counts as one failed when `requireAll`.
 * @param {Report[]} reports
 * @param {{ missing?: string[], requireAll: boolean }} options
 * @returns {Counts & { failedFiles: string[] }}
 */
export function sumReports(reports, { missing = [], requireAll }) {
  const total = { passed: 0, failed: 0, skipped: 0, failedFiles: /** @type {string[]} */ ([]) };
  for (const r of reports) {
    const c = reportCounts(r);
    total.passed += c.passed;
    total.failed += c.failed;
    total.skipped += c.skipped;
    total.failedFiles.push(...c.failedFiles);
  }
  if (requireAll) {
    total.failed += missing.length;
    total.failedFiles.push(...missing.map((m) => `${m} (no report)`));
  }
  return total;
}

/**
 * `t` with at least one failure when the runner exited non-zero: an exit status is never hidden
 * behind a total of zero failed.
 * @template {Counts} T
 * @param {T} t
 * @param {number | null} status exit status of the runner (null: killed by a signal)
 * @returns {T}
 */
export function withExitStatus(t, status) {
  return status !== 0 && t.failed === 0 ? { ...t, failed: 1 } : t;
}

/**
 * The closing line, `N passed, M failed, K skipped`.
 * @param {Counts} t
 */
export function totalLine(t) {
  return `${t.passed} passed, ${t.failed} failed, ${t.skipped} skipped`;
}
