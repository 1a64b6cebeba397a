/**
 * Go `time.ParseDuration` syntax, as kube-proxy's flags and KubeProxyConfiguration use it:
 * `300ms`, `1s`, `1m30s`, `1h`, `1.5h`, `0`. Returns milliseconds; throws with a precise message.
 */
const UNITS: Readonly<Record<string, number>> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

export function parseDurationMs(text: string): number {
  const s = text.trim();
  if (s === '0') return 0;
  const re = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h)/gy;
  let total = 0;
  let matched = 0;
  let m: RegExpExecArray | null;
  while ((m = re.exec(s)) !== null) {
    total += Number(m[1]) * UNITS[m[2]!]!;
    matched = re.lastIndex;
  }
  if (s.length === 0 || matched !== s.length) {
    throw new Error(
      `invalid duration ${JSON.stringify(text)}: expected a number with a unit (ns, us, ms, s, m, h), e.g. "1s" or "1m30s"`,
    );
  }
  return total;
}

export function formatDurationMs(ms: number): string {
  if (ms === 0) return '0s';
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000}h`;
  if (ms % 60_000 === 0) return `${ms / 60_000}m`;
  if (ms % 1000 === 0) return `${ms / 1000}s`;
  return `${ms}ms`;
}
