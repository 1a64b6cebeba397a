import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const KEYWORDS = new Set([
  'and',
  'or',
  'unless',
  'bool',
  'offset',
  'by',
  'without',
  'on',
  'ignoring',
  'group_left',
  'group_right',
  'inf',
  'nan',
  'atan2',
  'start',
  'end',
]);

/**
 * The metric names a PromQL expression selects (not a full parser: strings, label matchers,
 * ranges, grouping label lists, Grafana `$variables`, function and aggregation names are removed,
 * then every remaining identifier is a metric name).
 */
export function metricNames(expr: string): string[] {
  let s = expr
    .replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`[^`]*`/g, '""')
    .replace(/\$\{?\w+\}?/g, '')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ');
  s = s.replace(/(?<![\w.])[a-zA-Z_:][\w:]*(?=\s*\()/g, ' '); // functions and aggregations
  const names = s.match(/(?<![\w.])[a-zA-Z_:][\w:]*/g) ?? [];
  return [...new Set(names.filter((n) => !KEYWORDS.has(n.toLowerCase())))];
}

/** Checks brackets balance outside strings: catches a truncated or mis-edited expression. */
export function bracketProblem(expr: string): string | undefined {
  const s = expr.replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`[^`]*`/g, '""');
  const pairs: Record<string, string> = { ')': '(', ']': '[', '}': '{' };
  const stack: string[] = [];
  for (const c of s) {
    if (c === '(' || c === '[' || c === '{') stack.push(c);
    else if (c in pairs && stack.pop() !== pairs[c]) return `unbalanced ${c}`;
  }
  return stack.length ? `unclosed ${stack.at(-1)}` : undefined;
}

/** Metric names the codebase registers: metric-shaped string literals in non-test sources. */
export function codebaseMetricNames(root: string): Set<string> {
  const out = new Set<string>();
  for (const file of sourceFiles(join(root, 'packages'))) {
    for (const m of readFileSync(file, 'utf8').matchAll(/['"`]([a-z][a-z0-9]*(?:_[a-z0-9]+)+)['"`]/g)) out.add(m[1]!);
  }
  return out;
}

function* sourceFiles(dir: string): Generator<string> {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (e.name === 'node_modules' || e.name === 'dist') continue;
    const p = join(dir, e.name);
    if (e.isDirectory()) yield* sourceFiles(p);
    else if (/\.ts$/.test(e.name) && !/\.(test|d)\.ts$/.test(e.name) && p.includes('/src/')) yield p;
  }
}

/** Histogram/summary series resolve to their family name when the family is known. */
export function isKnownMetric(name: string, known: ReadonlySet<string>): boolean {
  if (known.has(name)) return true;
  const m = /^(.*)_(bucket|sum|count)$/.exec(name);
  return m !== null && known.has(m[1]!);
}
