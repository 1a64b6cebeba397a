const UNIT_MS: Readonly<Record<string, number>> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  ms: 1,
  s: 1_000,
  m: 60_000,
  h: 3_600_000,
};

/**
 * Parses a Go duration (`time.ParseDuration`): `1s`, `100ms`, `1m30s`, `1.5h`, `0`. Returns
 * milliseconds, or undefined when the text is not a duration. Negative durations are rejected:
 * no client flag accepts one.
 */
export function parseDuration(text: string): number | undefined {
  const s = text.trim();
  if (s === '0') return 0;
  if (s === '' || s.startsWith('-')) return undefined;
  const body = s.startsWith('+') ? s.slice(1) : s;
  const part = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h)/y;
  let total = 0;
  let index = 0;
  while (index < body.length) {
    part.lastIndex = index;
    const m = part.exec(body);
    if (!m) return undefined;
    total += Number(m[1]) * (UNIT_MS[m[2] as string] as number);
    index = part.lastIndex;
  }
  return index === 0 ? undefined : total;
}

/** Milliseconds as a Go-style duration string: `100ms`, `1.5s`, `10m0s`-like forms are not needed. */
export function formatDuration(ms: number): string {
  if (ms === 0) return '0s';
  if (ms < 1_000) return `${round(ms)}ms`;
  if (ms < 60_000) return `${round(ms / 1_000)}s`;
  if (ms < 3_600_000) return `${round(ms / 60_000)}m`;
  return `${round(ms / 3_600_000)}h`;
}

function round(n: number): number {
  return Math.round(n * 1_000) / 1_000;
}
