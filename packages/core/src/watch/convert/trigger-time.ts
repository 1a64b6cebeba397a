/** Set by the EndpointSlice controller on each slice it changes; the start of programming latency. */
export const TRIGGER_TIME_ANNOTATION = 'endpoints.kubernetes.io/last-change-trigger-time';

// RFC 3339 with optional fraction (RFC3339Nano prints up to 9 digits) and a Z or numeric offset.
const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/;

function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/**
 * Parses an RFC 3339 timestamp to epoch milliseconds (sub-millisecond digits are truncated).
 * Undefined when missing or unparsable, and for anything not after 1970 (Go's zero time
 * `0001-01-01T00:00:00Z` included), which kube-proxy treats as unset.
 */
export function parseTriggerTime(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const m = RFC3339.exec(text);
  if (!m) return undefined;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return undefined;
  if (hour > 23 || minute > 59 || second > 60) return undefined;
  const millis = Number((m[7] ?? '').padEnd(3, '0').slice(0, 3));
  let offsetMinutes = 0;
  if (m[9] !== undefined) {
    const [offsetHours, offsetMins] = [Number(m[10]), Number(m[11])];
    if (offsetHours > 23 || offsetMins > 59) return undefined;
    offsetMinutes = (m[9] === '-' ? -1 : 1) * (offsetHours * 60 + offsetMins);
  }
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, Math.min(second, 59), millis);
  const epochMillis = date.getTime() - offsetMinutes * 60_000;
  return epochMillis > 0 ? epochMillis : undefined;
}
