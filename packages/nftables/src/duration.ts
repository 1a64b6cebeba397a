const UNITS: Readonly<Record<string, number>> = { d: 86_400, h: 3_600, m: 60, s: 1, ms: 0.001 };
const PART = /(\d+)(ms|d|h|m|s)/g;

/** Parses an nft duration (`1h`, `59m59s988ms`, `10800s`) into whole seconds (rounded down). */
export function parseNftDurationSeconds(text: string): number {
  let seconds = 0;
  let consumed = 0;
  for (const match of text.matchAll(PART)) {
    seconds += Number(match[1]) * (UNITS[match[2] as string] ?? 0);
    consumed += match[0].length;
  }
  if (consumed !== text.length || text === '') throw new Error(`invalid nft duration ${JSON.stringify(text)}`);
  return Math.floor(seconds);
}
