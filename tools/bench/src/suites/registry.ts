import { readdirSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { join } from 'node:path';
import type { Suite } from './suite.js';

const SUITE_FILE = /^([a-z0-9][a-z0-9-]*)\.suite\.(?:ts|js)$/;
const HERE = fileURLToPath(new URL('.', import.meta.url));

/** Suite names found in `dir` (`<name>.suite.ts`, or `.js` once built), sorted. Tests are not suites. */
export function suiteNames(dir: string = HERE): string[] {
  const names = new Set<string>();
  for (const file of readdirSync(dir)) {
    const match = SUITE_FILE.exec(file);
    if (match?.[1]) names.add(match[1]);
  }
  return [...names].sort();
}

function isSuite(value: unknown): value is Suite {
  const s = value as Partial<Suite> | undefined;
  return (
    typeof s?.name === 'string' &&
    typeof s.run === 'function' &&
    Array.isArray(s.scenarios) &&
    typeof s.description === 'string'
  );
}

/** Imports `<name>.suite.*` from `dir` and checks that its default export is a suite of that name. */
export async function loadSuite(name: string, dir: string = HERE): Promise<Suite> {
  const file = readdirSync(dir).find((f) => SUITE_FILE.exec(f)?.[1] === name);
  if (!file) throw new Error(`no suite "${name}"; known: ${suiteNames(dir).join(', ') || '(none)'}`);
  const module = (await import(pathToFileURL(join(dir, file)).href)) as { default?: unknown };
  if (!isSuite(module.default))
    throw new Error(`${file} must default-export a suite ({ name, description, scenarios, run })`);
  if (module.default.name !== name)
    throw new Error(`${file} exports suite "${module.default.name}"; it must be named "${name}"`);
  return module.default;
}
