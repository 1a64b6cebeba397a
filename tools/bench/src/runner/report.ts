import type { Measurement } from './measure.js';

/** One measurement as printed: one JSON object per line on stdout (docs/PERFORMANCE.md). */
export interface ReportRow {
  readonly scenario: string;
  readonly metric: string;
  /** The figure to quote: the median for timings and ratios, the value itself for sizes and counts. */
  readonly value: number;
  readonly unit: string;
  readonly n: number;
  readonly p50: number;
  readonly p99: number;
}

export interface Writable {
  write(chunk: string): unknown;
}

export interface Reporter {
  report(row: ReportRow): void;
  readonly rows: readonly ReportRow[];
  /** Writes the human-readable table of every row so far. */
  printTable(): void;
}

/** Six significant digits for fractions (timings, ratios); integers (bytes, counts) stay exact. */
export function roundForReport(value: number): number {
  return Number.isInteger(value) ? value : Number(value.toPrecision(6));
}

function checked(row: ReportRow): ReportRow {
  if (!row.scenario || !row.metric || !row.unit)
    throw new Error(`report row needs scenario, metric and unit: ${JSON.stringify(row)}`);
  for (const key of ['value', 'n', 'p50', 'p99'] as const) {
    if (!Number.isFinite(row[key]))
      throw new Error(`report row ${row.scenario} ${row.metric}: ${key} is not a finite number`);
  }
  return row;
}

/** The JSON line for a row, keys in the documented order, numbers rounded. */
export function formatRow(row: ReportRow): string {
  const r = checked(row);
  return JSON.stringify({
    scenario: r.scenario,
    metric: r.metric,
    value: roundForReport(r.value),
    unit: r.unit,
    n: r.n,
    p50: roundForReport(r.p50),
    p99: roundForReport(r.p99),
  });
}

/** A row for a measurement: value is its median. */
export function rowFromMeasurement(scenario: string, metric: string, m: Measurement): ReportRow {
  return { scenario, metric, value: m.p50, unit: m.unit, n: m.n, p50: m.p50, p99: m.p99 };
}

/** A row for a single figure (a size, a count). */
export function rowFromValue(scenario: string, metric: string, value: number, unit: string): ReportRow {
  return { scenario, metric, value, unit, n: 1, p50: value, p99: value };
}

export function formatTable(rows: readonly ReportRow[]): string {
  if (rows.length === 0) return '(no measurements)\n';
  const header = ['scenario', 'metric', 'value', 'unit', 'n', 'p50', 'p99'];
  const body = rows.map((r) =>
    [r.scenario, r.metric, roundForReport(r.value), r.unit, r.n, roundForReport(r.p50), roundForReport(r.p99)].map(
      String,
    ),
  );
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((cells) => (cells[i] ?? '').length)));
  const numeric = new Set([2, 4, 5, 6]);
  const line = (cells: readonly string[]): string =>
    cells
      .map((c, i) => (numeric.has(i) ? c.padStart(widths[i] ?? 0) : c.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd();
  return `${[line(header), line(widths.map((w) => '-'.repeat(w))), ...body.map(line)].join('\n')}\n`;
}

export function createReporter(out: Writable = process.stdout, err: Writable = process.stderr): Reporter {
  const rows: ReportRow[] = [];
  return {
    rows,
    report(row) {
      out.write(`${formatRow(row)}\n`);
      rows.push(row);
    },
    printTable() {
      err.write(formatTable(rows));
    },
  };
}
