/**
 * Node.js release lines and their dates (the Node.js release schedule). Images must run a line
 * that is LTS today and not past its end of life: a test fails the day a line in use reaches
 * its end of life, so the move to the next LTS is made before users run an unsupported runtime.
 * Add the next line here when its LTS date is announced.
 */
export interface NodeLine {
  readonly major: number;
  /** First day of Active LTS (ISO date). */
  readonly lts: string;
  /** End of life: no security fixes after this day (ISO date). */
  readonly eol: string;
}

export const NODE_LINES: readonly NodeLine[] = [
  { major: 20, lts: '2023-10-24', eol: '2026-04-30' },
  { major: 22, lts: '2024-10-29', eol: '2027-04-30' },
  { major: 24, lts: '2025-10-28', eol: '2028-04-30' },
  { major: 26, lts: '2026-10-28', eol: '2029-04-30' },
];

export type LineStatus = 'supported-lts' | 'end-of-life' | 'not-lts-yet' | 'unknown';

/** Where `major` stands on `day` (UTC): only `supported-lts` is fit for an image. */
export function lineStatus(major: number, day: Date = new Date(), lines: readonly NodeLine[] = NODE_LINES): LineStatus {
  const line = lines.find((l) => l.major === major);
  if (!line) return 'unknown';
  const today = day.toISOString().slice(0, 10);
  if (today > line.eol) return 'end-of-life';
  if (today < line.lts) return 'not-lts-yet';
  return 'supported-lts';
}

/** The major of a version (`24.21.0`, `v24.21.0`) or of a `node:` image tag (`node:24-bookworm-slim`). */
export function nodeMajor(versionOrImage: string): number {
  const m = /^(?:node:)?v?(\d+)(?:[.-]|$)/.exec(versionOrImage);
  if (!m) throw new Error(`no Node.js major version in ${JSON.stringify(versionOrImage)}`);
  return Number(m[1]);
}
