// @ts-check
// The workspace total of `npm test` (test.mjs), from the JSON reports each project's vitest writes.
// Nothing may hide in it: a test file that failed counts every test of it that did not pass as
// failed (vitest reports the tests of a file whose `beforeAll` threw as skipped), and a file that
// failed with no failed test at all (an import error, a throwing `afterAll`) counts as one failed.

/**
 * @typedef {{ status?: string, fullName?: string, title?: string, failureMessages?: string[] }} TestResult
 * @typedef {{ name?: string, status?: string, message?: string, assertionResults?: TestResult[] }} FileResult
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

/** The first non-empty line of a failure message, bounded: enough to tell one failure from another. */
const firstLine = (/** @type {string | undefined} */ m) =>
  (m ?? '')
    .split('\n')
    .find((l) => l.trim() !== '')
    ?.trim()
    .slice(0, 300) ?? '';

/**
 * One line per failure of a file: each failed test (`file > test: first line of its error`), or the
 * file itself when it failed with no failed test (an import error, a throwing hook).
 * @param {FileResult} file
 * @returns {string[]}
 */
export function failureLines(file) {
  const name = file.name ?? '?';
  const lines = (file.assertionResults ?? [])
    .filter((t) => t.status === 'failed')
    .map((t) => `${name} > ${t.fullName ?? t.title ?? '?'}: ${firstLine(t.failureMessages?.[0])}`);
  if (lines.length === 0 && file.status === 'failed') lines.push(`${name}: ${firstLine(file.message) || 'failed'}`);
  return lines;
}

/** @typedef {Counts & { failedFiles: string[], failures: string[] }} Total */

/** @returns {Total} */
const emptyTotal = () => ({ passed: 0, failed: 0, skipped: 0, failedFiles: [], failures: [] });

/**
 * Adds `part` to `total`.
 * @param {Total} total
 * @param {Total} part
 */
function add(total, part) {
  total.passed += part.passed;
  total.failed += part.failed;
  total.skipped += part.skipped;
  total.failedFiles.push(...part.failedFiles);
  total.failures.push(...part.failures);
}

/**
 * The counts of one project's report, the names of its files that failed, and a line per failure.
 * @param {Report} report
 * @returns {Total}
 */
export function reportCounts(report) {
  const total = emptyTotal();
  for (const file of report.testResults ?? [])
    add(total, {
      ...fileCounts(file),
      failedFiles: file.status === 'failed' ? [file.name ?? '?'] : [],
      failures: failureLines(file),
    });
  return total;
}

/**
 * Sums projects' reports. A project listed in `missing` (it wrote no report: its vitest never ran or
 * crashed) counts as one failed when `requireAll`.
 * @param {Report[]} reports
 * @param {{ missing?: string[], requireAll: boolean }} options
 * @returns {Total}
 */
export function sumReports(reports, { missing = [], requireAll }) {
  const total = emptyTotal();
  for (const r of reports) add(total, reportCounts(r));
  if (requireAll) {
    total.failed += missing.length;
    total.failedFiles.push(...missing.map((m) => `${m} (no report)`));
    total.failures.push(...missing.map((m) => `${m}: no report (its vitest never ran or crashed)`));
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
