import { readFileSync } from 'node:fs';

/** This package's version (from package.json, beside both src/ and dist/). */
export const VERSION = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

export function versionText(raw: boolean, modes: readonly string[]): string {
  if (!raw) return `kube-proxy (kpng) v${VERSION}\n`;
  const info = {
    implementation: 'kpng',
    version: VERSION,
    modes,
    nodeVersion: process.version,
    platform: `${process.platform}/${process.arch}`,
  };
  return `${JSON.stringify(info, null, 2)}\n`;
}
