import { readFileSync } from 'node:fs';

/** This package's version, read from its package.json (two levels up from `src/util` and `dist/util`). */
export const PACKAGE_VERSION = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;
