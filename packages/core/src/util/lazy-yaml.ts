import { createRequire } from 'node:module';
import type * as Yaml from 'yaml';

let loaded: typeof Yaml | undefined;

/**
 * The `yaml` package, loaded on first use: ~10 MiB of resident memory at start that a program
 * watching an API server never needs (only a YAML manifest and `--output yaml` do).
 */
export function yaml(): typeof Yaml {
  loaded ??= createRequire(import.meta.url)('yaml') as typeof Yaml;
  return loaded;
}
