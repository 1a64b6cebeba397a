import { describe, expect, it } from 'vitest';
import { measurementOf } from './measure.js';
import {
  createReporter,
  formatRow,
  formatTable,
  roundForReport,
  rowFromMeasurement,
  rowFromValue,
  type Writable,
} from './report.js';

const sink = (): Writable & { text: string } => {
  const s = { text: '', write: (chunk: string) => (s.text += chunk) };
  return s;
};

describe('formatRow', () => {
  it('prints the seven fields in the documented order', () => {
    const line = formatRow({
      scenario: 's10k',
      metric: 'core.recompute',
      value: 1.23456789,
      unit: 'ms',
      n: 5,
      p50: 1.23456789,
      p99: 2,
    });
    expect(line).toBe(
      '{"scenario":"s10k","metric":"core.recompute","value":1.23457,"unit":"ms","n":5,"p50":1.23457,"p99":2}',
    );
    expect(Object.keys(JSON.parse(line) as object)).toEqual(['scenario', 'metric', 'value', 'unit', 'n', 'p50', 'p99']);
  });

  it('refuses rows that would print nonsense', () => {
    expect(() => formatRow({ scenario: '', metric: 'm', value: 1, unit: 'ms', n: 1, p50: 1, p99: 1 })).toThrow(
      /scenario/,
    );
    expect(() =>
      formatRow({ scenario: 's', metric: 'm', value: Number.NaN, unit: 'ms', n: 1, p50: 1, p99: 1 }),
    ).toThrow(/value/);
  });
});

describe('roundForReport', () => {
  it('keeps integers exact and fractions to six significant digits', () => {
    expect(roundForReport(26_782_184)).toBe(26_782_184);
    expect(roundForReport(0.0123456789)).toBe(0.0123457);
    expect(roundForReport(12345.6789)).toBe(12345.7);
  });
});

describe('rows', () => {
  it('takes value and p50 from a measurement median', () => {
    const row = rowFromMeasurement('s1k', 'generate', measurementOf('g', [4, 1, 3, 2]));
    expect(row).toEqual({
      scenario: 's1k',
      metric: 'generate',
      value: 2.5,
      unit: 'ms',
      n: 4,
      p50: 2.5,
      p99: expect.closeTo(3.97, 10),
    });
  });

  it('makes a single-figure row', () => {
    expect(rowFromValue('s1k', 'bytes', 10, 'bytes')).toEqual({
      scenario: 's1k',
      metric: 'bytes',
      value: 10,
      unit: 'bytes',
      n: 1,
      p50: 10,
      p99: 10,
    });
  });
});

describe('createReporter', () => {
  it('writes one JSON line per row to stdout and the table to stderr', () => {
    const out = sink();
    const err = sink();
    const reporter = createReporter(out, err);
    reporter.report(rowFromValue('s1k', 'a', 1, 'bytes'));
    reporter.report(rowFromValue('s1k', 'b', 2.5, 'ms'));
    const lines = out.text
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as { metric: string });
    expect(lines.map((l) => l.metric)).toEqual(['a', 'b']);
    expect(err.text).toBe('');
    reporter.printTable();
    expect(err.text).toBe(formatTable(reporter.rows));
  });
});

describe('formatTable', () => {
  it('aligns columns under a header', () => {
    const table = formatTable([
      rowFromValue('s1k', 'generate', 12.5, 'ms'),
      rowFromValue('s10k-wide', 'bytes', 1234567, 'bytes'),
    ]);
    expect(table.split('\n')).toEqual([
      'scenario   metric      value  unit   n      p50      p99',
      '---------  --------  -------  -----  -  -------  -------',
      's1k        generate     12.5  ms     1     12.5     12.5',
      's10k-wide  bytes     1234567  bytes  1  1234567  1234567',
      '',
    ]);
    expect(formatTable([])).toBe('(no measurements)\n');
  });
});
