import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * The lab's helper scripts are plain `.mjs` files run with `node` inside namespaces. They live
 * next to the sources (`src/netns/scripts/`); a build does not copy them, so from `dist/` we look
 * back into `src/`.
 */
export function labScript(
  file: 'echo-server.mjs' | 'probe-client.mjs' | 'hold-client.mjs' | 'steady-client.mjs',
): string {
  const candidates = [
    new URL(`./scripts/${file}`, import.meta.url),
    new URL(`../../src/netns/scripts/${file}`, import.meta.url),
  ];
  const found = candidates.map((url) => fileURLToPath(url)).find((path) => existsSync(path));
  if (found === undefined) throw new Error(`lab script ${file} not found next to ${fileURLToPath(import.meta.url)}`);
  return found;
}
