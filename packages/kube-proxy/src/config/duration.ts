/**
 * Go `time.Duration` text, as KubeProxyConfiguration and kube-proxy's flags spell it. Core's
 * `parseDurationMs` reads the unsigned form; Go also accepts a sign, and validation must see
 * negative values to reject them with upstream's message, so the sign is handled here.
 */
import { parseDurationMs } from '@kpng/core';

/** Milliseconds. Throws `invalid duration "…"` like Go's `time.ParseDuration`. */
export function parseGoDuration(text: string): number {
  const trimmed = text.trim();
  const sign = trimmed.startsWith('-') ? -1 : 1;
  const unsigned = /^[+-]/.test(trimmed) ? trimmed.slice(1) : trimmed;
  if (unsigned === '') throw new Error(`invalid duration ${JSON.stringify(text)}`);
  try {
    return sign * parseDurationMs(unsigned);
  } catch {
    throw new Error(`invalid duration ${JSON.stringify(text)}`);
  }
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
