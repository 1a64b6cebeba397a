/**
 * kube-proxy's IPVS timeouts are Go durations (`900s`, `15m`, `1h30m`, `0s`); plain numbers are
 * seconds. IPVS takes whole seconds.
 */
const UNIT_SECONDS: Readonly<Record<string, number>> = { h: 3600, m: 60, s: 1, ms: 0.001 };

export function durationSeconds(text: string): number | undefined {
  const trimmed = text.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed);
  const parts = [...trimmed.matchAll(/(\d+(?:\.\d+)?)(h|ms|m|s)/g)];
  if (parts.length === 0 || parts.map((p) => p[0]).join('') !== trimmed) return undefined;
  return Math.round(parts.reduce((sum, [, n = '0', unit = 's']) => sum + Number(n) * (UNIT_SECONDS[unit] ?? 0), 0));
}
