/**
 * Go's `time.Duration` as text, in milliseconds: `time.ParseDuration` (`300ms`, `1m30s`, `1.5h`,
 * `-1s`, `0`) and `Duration.String()` (`0s`, `250ms`, `1m30s`, `1h0m0s`). kube-proxy's flags and
 * KubeProxyConfiguration, kpng's and the test clients' flags all spell durations this way.
 */
const UNIT_MS: Readonly<Record<string, number>> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  μs: 1e-3,
  ms: 1,
  s: 1_000,
  m: 60_000,
  h: 3_600_000,
};
const PART = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)/y;

/** Milliseconds; throws `invalid duration "…"` (Go's message) for anything `time.ParseDuration` refuses. */
export function parseGoDuration(text: string): number {
  const invalid = () => new Error(`invalid duration ${JSON.stringify(text)}`);
  const s = text.trim();
  const sign = s.startsWith('-') ? -1 : 1;
  const body = /^[+-]/.test(s) ? s.slice(1) : s;
  if (body === '0') return 0;
  if (body === '') throw invalid();
  let total = 0;
  let index = 0;
  while (index < body.length) {
    PART.lastIndex = index;
    const m = PART.exec(body);
    if (!m) throw invalid();
    total += Number(m[1]) * (UNIT_MS[m[2] as string] as number);
    index = PART.lastIndex;
  }
  return sign * total;
}

/**
 * A duration that may not be negative (a period, a timeout), in milliseconds. Throws with the
 * accepted syntax in the message.
 */
export function parseDurationMs(text: string): number {
  let ms: number;
  try {
    ms = parseGoDuration(text);
  } catch {
    throw new Error(
      `invalid duration ${JSON.stringify(text)}: expected a number with a unit (ns, us, ms, s, m, h), e.g. "1s" or "1m30s"`,
    );
  }
  if (ms < 0) throw new Error(`invalid duration ${JSON.stringify(text)}: must not be negative`);
  return ms;
}

const NS_PER_MS = 1_000_000;

/** Go's `Duration.String()`: `0s`, `250ms`, `30s`, `1m30s`, `1h0m0s`, `24h0m0s`, `-1s`. */
export function formatGoDuration(ms: number): string {
  if (ms === 0) return '0s';
  const sign = ms < 0 ? '-' : '';
  let ns = Math.round(Math.abs(ms) * NS_PER_MS);
  if (ns < 1_000_000_000) return sign + smallUnit(ns);
  const hours = Math.floor(ns / 3_600_000_000_000);
  ns -= hours * 3_600_000_000_000;
  const minutes = Math.floor(ns / 60_000_000_000);
  ns -= minutes * 60_000_000_000;
  const seconds = withFraction(ns, 1_000_000_000) + 's';
  if (hours > 0) return `${sign}${hours}h${minutes}m${seconds}`;
  if (minutes > 0) return `${sign}${minutes}m${seconds}`;
  return sign + seconds;
}

function smallUnit(ns: number): string {
  if (ns < 1_000) return `${ns}ns`;
  if (ns < 1_000_000) return `${withFraction(ns, 1_000)}µs`;
  return `${withFraction(ns, 1_000_000)}ms`;
}

/** `value / unit` with the fraction's trailing zeros trimmed, as Go prints it. */
function withFraction(value: number, unit: number): string {
  const whole = Math.floor(value / unit);
  const rest = value - whole * unit;
  if (rest === 0) return String(whole);
  const digits = String(unit).length - 1;
  return `${whole}.${String(rest).padStart(digits, '0').replace(/0+$/, '')}`;
}
